// tilegrid device helpers: wgmma (sm_90a): its fence, commit and wait, and the multiplies from descriptors.
#pragma once

__device__ __forceinline__ void tg_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void tg_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

// The first of the two rows a warpgroup thread `t` holds in each 64-row block of a wgmma accumulator
// fragment (the other is 8 below): 16 rows a warp, 8 of them by lane / 4. Its float i lies on the
// first row where i % 4 < 2, in column 8 (i / 4) + 2 (lane % 4) + i % 2.
__device__ __forceinline__ int tg_wgmma_fragment_row(int t) { return 16 * (t / 32) + (t % 32) / 4; }

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
