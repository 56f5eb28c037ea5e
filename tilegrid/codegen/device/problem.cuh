// tilegrid device helpers: problem. The problem a GEMM kernel is launched on, passed as one
// argument by value. Kernels that read their shape at launch take every size from it; kernels with
// the shape compiled in still take it (and read nothing), so every GEMM kernel has one signature.
// Plain fixed-size fields only: host code includes this file too (tilegrid/codegen/problem_args.h), so host
// and device agree on the layout by construction. Needs work_split.cuh first.
#pragma once

// The operands of a fused epilogue (the kernel's printed tg_epilogue_value), in the caller's terms:
// element (m, n) of the caller's row-major C, whichever orientation the kernel stores C in. Element
// types are the configuration's (tg_bias_t, tg_c_in_t, tg_residual_t, tg_aux_t).
struct tg_epilogue_args {
  const void* bias;      // a vector along m or n (the epilogue says which)
  const void* c;         // matrices of C's shape
  const void* residual;
  void* aux;             // the auxiliary output, C's shape
  // The scales of 8-bit A and B: a float each, or one per row of A and column of B.
  const float* scale_a;
  const float* scale_b;
  // Elements between batch entries (a vector shared by every entry has 0), and between rows.
  long long batch_stride_bias, batch_stride_c, batch_stride_residual, batch_stride_aux;
  long long batch_stride_scale_a, batch_stride_scale_b;
  long long ld_c, ld_residual, ld_aux;
  float alpha, beta;
  // sm_90 kernels with AUX_BY_TMA (C_IN_BY_TMA): 1 where the launch's aux (c) takes TMA stores
  // (loads): a 16-byte aligned pointer, rows and batch entries whole 16-byte granules apart; the
  // kernel's map of it is then encoded. 0 where the threads store (read) it.
  int aux_by_tma, c_by_tma;
};

struct tg_problem {
  // Elements from one batch entry of A, B and C to the next, as the kernel reads them.
  long long batch_stride_a, batch_stride_b, batch_stride_c;
  // The kernel problem (with swap_ab, the caller's turned around: C^T = B^T * A^T).
  int M, N, K, batch;
  // Elements from one stored row of A, B and C to the next, as the kernel reads them.
  int lda, ldb, ldc;
  // Output tiles along M and N: ceilDiv(M, BM), ceilDiv(N, bn).
  int tiles_m, tiles_n;
  // The tile's width: BN, or the launch's choice in a kernel that holds several (WIDTH_AT_LAUNCH).
  int bn;
  // Computed on the host for the kernel's tile, so that the kernel keeps no register for them:
  // K tiles (ceilDiv(K, BK)), the k16 steps of a last K tile cut by K (0 when BK divides K), and
  // the work units the tile grid's traversal makes per batch entry (tiles, plus any overhang).
  int k_tiles, k_tail_steps, units;
  // The grid traversal's group (1: m, 2: n), and the cluster tiles along the grouped and the other
  // dimension, for kernels that read the group at launch; its factor, for kernels that read that too
  // (GRID_FACTOR_AT_LAUNCH).
  int grid_group, grid_grouped, grid_other, grid_factor;
  // sm_90: CTAs per cluster along M, for kernels that hold several sizes (CLUSTER_AT_LAUNCH).
  int cluster_m;
  // sm_90: 1 where TMA stores C (its rows and batch entries are whole 16-byte granules), 0 where the
  // epilogue's threads store it.
  int c_by_tma;
  // sm_90: 1 where the kernel computes C^T = B^T A^T (the caller's problem turned around, each tile
  // stored transposed), 0 where it computes C = A B; read by kernels holding both orientations.
  int c_transposed;
  // How the launched grid of a persistent sm_90 kernel divides the work units: the scheduler's
  // planWorkSplit for exactly the clusters launched.
  tg_work_split split;
  // Dot kernels (scheduler/dot_kernel.h): CTAs a batch entry's K is cut into, and the K steps each
  // takes (scheduler::planDotSplit). Their launches leave the tile and split fields above zero.
  int k_chunks, k_chunk_steps;
  // 1 where the kernel reads A (B) evict-first in L2: an operand read once, within the size limit
  // (scheduler/l2_policy.h). Read by sm_90 and dot kernels.
  int evict_first_a, evict_first_b;
  // What a fused epilogue reads and writes besides C (unread by kernels without one).
  tg_epilogue_args epilogue;
};
