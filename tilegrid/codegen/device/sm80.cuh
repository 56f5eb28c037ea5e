// tilegrid device helpers: sm_80 (Ampere) tensor-core math, raw PTX (its fragments come by
// ldmatrix.cuh).
#pragma once

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
