// tilegrid device helpers: sm_80 (Ampere) data movement and tensor-core math, raw PTX.
#pragma once

// Copies `bytes` (4, 8 or 16) from global to shared memory asynchronously. Only `src_bytes` are
// read; the rest of the destination is zero-filled, which predicates edges and K tails. 16-byte
// pieces hint L2 to fetch the whole 128-byte line around them, which the tile's other pieces mostly
// read (H100, 4096^3, same-process A/B, TFLOP/s: TN 482.1-487.1 without the hint, 486.7-488.1 with it;
// NT 477.5-481.6 / 480.3-483.1; 4000^3 TN 428.6-428.7 / 430.8-434.1).
template <int Bytes>
__device__ __forceinline__ void tg_cp_async(tg_u32 smem_dst, const void* gmem_src, int src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(smem_dst), "l"(gmem_src), "r"(src_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(smem_dst), "l"(gmem_src), "n"(Bytes),
                 "r"(src_bytes)
                 : "memory");
  }
}

template <int Bytes>
__device__ __forceinline__ void tg_cp_async(void* smem_dst, const void* gmem_src, int src_bytes) {
  tg_cp_async<Bytes>(tg_smem_addr(smem_dst), gmem_src, src_bytes);
}

__device__ __forceinline__ void tg_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int Pending>
__device__ __forceinline__ void tg_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// Four 8x8 b16 matrices; lane l gives the shared-space address of a row of matrix l / 8. The main
// loop passes 32-bit shared addresses, so that a stage and a fragment are plain adds to a register
// (a generic pointer costs a conversion and a shift per K tile).
__device__ __forceinline__ void tg_ldmatrix_x4(tg_u32 (&r)[4], tg_u32 row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row));
}

__device__ __forceinline__ void tg_ldmatrix_x4_trans(tg_u32 (&r)[4], tg_u32 row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(row));
}

__device__ __forceinline__ void tg_ldmatrix_x4(tg_u32 (&r)[4], const void* row) { tg_ldmatrix_x4(r, tg_smem_addr(row)); }

__device__ __forceinline__ void tg_ldmatrix_x4_trans(tg_u32 (&r)[4], const void* row) {
  tg_ldmatrix_x4_trans(r, tg_smem_addr(row));
}

// D += A (16x16, row) * B (16x8, col), fp32 accumulators; Bf16 picks bf16 or fp16 inputs.
template <bool Bf16>
__device__ __forceinline__ void tg_mma_m16n8k16(float (&d)[4], const tg_u32 (&a)[4], tg_u32 b0, tg_u32 b1) {
  if constexpr (Bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}
