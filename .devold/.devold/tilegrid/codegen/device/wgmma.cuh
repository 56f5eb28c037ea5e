// tilegrid device helpers: wgmma (sm_90a). Descriptors are computed from shared-memory addresses at
// run time; NVRTC 13.0 was seen to crash on compile-time-constant descriptors.
#pragma once

// The 64-bit shared-memory matrix descriptor: start address, leading and stride byte offsets (each
// >> 4, 14 bits), base offset (bits 49-51, 0 for pattern-aligned tiles) and layout type (bits 62-63:
// 0 interleave, 1 128B, 2 64B, 3 32B).
__device__ __forceinline__ tg_u64 tg_wgmma_desc(tg_u32 smem_addr, tg_u32 lbo_bytes, tg_u32 sbo_bytes,
                                                tg_u32 layout_type) {
  tg_u64 desc = 0;
  desc |= static_cast<tg_u64>((smem_addr & 0x3FFFF) >> 4);
  desc |= static_cast<tg_u64>((lbo_bytes & 0x3FFFF) >> 4) << 16;
  desc |= static_cast<tg_u64>((sbo_bytes & 0x3FFFF) >> 4) << 32;
  desc |= static_cast<tg_u64>(layout_type & 0x3) << 62;
  return desc;
}

__device__ __forceinline__ void tg_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void tg_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

template <int Pending>
__device__ __forceinline__ void tg_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

// D (64x8 fp32, 4 registers per thread) += A (64x16 bf16, smem) * B (16x8 bf16, smem), both
// K-major. scale_d = 0 overwrites D.
__device__ __forceinline__ void tg_wgmma_m64n8k16_bf16(float (&d)[4], tg_u64 desc_a, tg_u64 desc_b, int scale_d) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// Register rebalancing between warpgroup roles. Takes effect only under a register cap at entry
// (__launch_bounds__(threads, 1)) and when each role is one branch of an if/else (else C7508).
template <int Regs>
__device__ __forceinline__ void tg_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

template <int Regs>
__device__ __forceinline__ void tg_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
