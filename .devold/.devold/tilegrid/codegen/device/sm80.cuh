// tilegrid device helpers: sm_80 (Ampere) data movement and tensor-core math, raw PTX.
#pragma once

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
