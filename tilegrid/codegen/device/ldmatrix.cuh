// tilegrid device helpers: ldmatrix, shared memory to the warp's registers in the mma fragment
// layout. sm_80 kernels load their operand fragments with it; sm_90 epilogues read a slab that TMA
// loaded, the inverse of stmatrix (stmatrix.cuh), at the same addresses.
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
