// tilegrid device helpers: stmatrix (sm_90), the store counterpart of ldmatrix.
#pragma once

// Four 8x8 matrices of 16-bit elements from the warp's registers to shared memory. Register i of
// lane l holds matrix i's row l / 4, elements 2 (l % 4) and + 1: the mma accumulator layout, after
// packing pairs. Lane l gives the address of matrix l / 8's row l % 8 (16 contiguous bytes).
__device__ __forceinline__ void tg_stmatrix_x4(void* row, const tg_u32 (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(tg_smem_addr(row)), "r"(r[0]),
               "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}

// The same four matrices stored transposed: the element tg_stmatrix_x4 would put at row i, column j
// of a matrix goes to row j, column i, so lane l addresses row l % 8 of matrix l / 8 as stored (which
// holds column l % 8 of the registers' rows).
__device__ __forceinline__ void tg_stmatrix_x4_trans(void* row, const tg_u32 (&r)[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(tg_smem_addr(row)),
               "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}
