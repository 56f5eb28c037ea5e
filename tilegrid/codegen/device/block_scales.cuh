// tilegrid device helpers: block scales (DeepSeek-V3's recipe), applied per K block in the main loop.
// A has a float per row m and K block kb, at kb * M + m; B a float per 128-column block nb and K
// block kb, at nb * stride + kb, its K blocks padded to a multiple of four (the layouts cuBLASLt's
// VEC128 and BLK128x128 scales take). A K tile is one block: its wgmma sum lands in a second set of
// accumulators (`part`), which the consumer scales into its totals once the tile's wgmmas are done.
// Needs problem.cuh first.
#pragma once

// One K block's scales for a consumer thread: A's for its two rows of each 64-row block (rows r and
// r + 8 of the block, r = 16 * warp + lane / 4: where the wgmma fragment puts them), B's for the
// tile's column block.
template <int M_BLOCKS>
struct tg_block_scales {
  float a[M_BLOCKS][2];
  float b;
};

// Rows past M read nothing (their sums are never stored).
template <int M_BLOCKS>
__device__ __forceinline__ void tg_load_block_scales(tg_block_scales<M_BLOCKS>& s, const tg_epilogue_args& ep, int M,
                                                     int k_blocks, int first_row, int column_block, int batch, int kb,
                                                     int t) {
  const float* a = ep.scale_a + batch * ep.batch_stride_scale_a + static_cast<long long>(kb) * M;
  const int r = first_row + 16 * (t / 32) + (t % 32) / 4;
#pragma unroll
  for (int mb = 0; mb < M_BLOCKS; ++mb) {
    const int m = r + 64 * mb;
    s.a[mb][0] = m < M ? __ldg(a + m) : 0.f;
    s.a[mb][1] = m + 8 < M ? __ldg(a + m + 8) : 0.f;
  }
  const int stride = (k_blocks + 3) / 4 * 4;
  s.b = __ldg(ep.scale_b + batch * ep.batch_stride_scale_b + static_cast<long long>(column_block) * stride + kb);
}

// total += part * scales (the totals start at zero with each unit): the fragment's element i lies on
// the thread's first row where i % 4 < 2, else on its second.
template <int N>
__device__ __forceinline__ void tg_promote_block(float (&total)[N], const float (&part)[N], float scale_a0,
                                                 float scale_a1, float scale_b) {
  const float s0 = scale_a0 * scale_b, s1 = scale_a1 * scale_b;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const float s = i % 4 < 2 ? s0 : s1;
    total[i] = fmaf(part[i], s, total[i]);
  }
}
