// tilegrid device helpers: block scales (DeepSeek-V3's recipe), applied per K block in the main loop.
// A has a float per row m and K block kb, at kb * M + m; B a float per 128-column block nb and K
// block kb, at nb * stride + kb, its K blocks padded to a multiple of four (the layouts cuBLASLt's
// VEC128 and BLK128x128 scales take). A K tile is one block: a producer warp stages its scales beside
// its tiles, its wgmma sum lands in a second set of accumulators (`part`), and the consumer scales
// that into its totals once the tile's wgmmas are done.
// Needs problem.cuh, cp_async.cuh and wgmma.cuh first.
#pragma once

// A producer warp's share of a stage: one K block's scales of the tile's BM rows from `first_row`
// (rows past M read nothing and hold zeros: their sums are never stored), then B's for the tile's
// column block, at dst[BM]. The copies are asynchronous: each lane's arrival on `full` counts once
// its copies land, so the warp goes on to the next stage while they are in flight.
template <int BM>
__device__ __forceinline__ void tg_stage_block_scales(float* dst, const tg_epilogue_args& ep, int M, int k_blocks,
                                                      int first_row, int column_block, int batch, int kb, int lane,
                                                      tg_u64* full) {
  const float* a = ep.scale_a + batch * ep.batch_stride_scale_a + static_cast<long long>(kb) * M;
#pragma unroll
  for (int i = lane; i < BM; i += 32) {
    const int m = first_row + i;
    tg_cp_async<4>(dst + i, a + (m < M ? m : M - 1), m < M ? 4 : 0);
  }
  if (lane == 0) {
    const int stride = (k_blocks + 3) / 4 * 4;
    tg_cp_async<4>(dst + BM, ep.scale_b + batch * ep.batch_stride_scale_b + static_cast<long long>(column_block) * stride + kb, 4);
  }
  tg_cp_async_arrive(full);
}

// One K block's scales for a consumer thread, as the products of A's and B's: A's for its two rows of
// each 64-row block (rows r and r + 8 of the block, r = 16 * warp + lane / 4: where the wgmma fragment
// puts them), read from a stage that tg_stage_block_scales filled for the tile's BM rows;
// `first_row` is the warpgroup's first row in the tile.
template <int M_BLOCKS>
struct tg_block_scales {
  float row[M_BLOCKS][2];
};

template <int M_BLOCKS>
__device__ __forceinline__ void tg_read_block_scales(tg_block_scales<M_BLOCKS>& s, const float* stage, int bm,
                                                     int first_row, int t) {
  const float b = stage[bm];
  const int r = first_row + tg_wgmma_fragment_row(t);
#pragma unroll
  for (int mb = 0; mb < M_BLOCKS; ++mb) {
    s.row[mb][0] = stage[r + 64 * mb] * b;
    s.row[mb][1] = stage[r + 64 * mb + 8] * b;
  }
}

// total += part * scale (the totals start at zero with each unit): the fragment's element i lies on
// the thread's first row where i % 4 < 2, else on its second.
template <int N>
__device__ __forceinline__ void tg_promote_block(float (&total)[N], const float (&part)[N], float scale0, float scale1) {
#pragma unroll
  for (int i = 0; i < N; ++i) total[i] = fmaf(part[i], i % 4 < 2 ? scale0 : scale1, total[i]);
}
