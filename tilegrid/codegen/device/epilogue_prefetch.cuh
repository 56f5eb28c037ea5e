// tilegrid kernel parts: prefetching a fused epilogue's operands. A tile's epilogue reads them after the
// tile's main loop, where nothing hides the latency of global memory. Issued as the main loop starts,
// the bias vector's lines come into L1 (a few lines a tile, which TMA's traffic does not pass through)
// and the matrices' lines into L2, so that the epilogue's reads hit a near cache. Reads the
// configuration (EPILOGUE_BIAS_AXIS, EPILOGUE_READS_C, EPILOGUE_READS_RESIDUAL).
#pragma once

static_assert(tg_config::EPILOGUE_BIAS_AXIS >= 0 && tg_config::EPILOGUE_BIAS_AXIS <= 2, "a bias runs along m or n");
static_assert(tg_config::HAS_EPILOGUE || (!tg_config::EPILOGUE_AUX && tg_config::EPILOGUE_BIAS_AXIS == 0 &&
                                          !tg_config::EPILOGUE_READS_C && !tg_config::EPILOGUE_READS_RESIDUAL),
              "the identity epilogue reads and writes nothing");

// The 128-byte lines of rows [m0, m0 + rows) x columns [n0, n0 + cols) of a matrix of T, into L2, by
// `Threads` threads.
template <typename T, int Threads>
__device__ __forceinline__ void tg_prefetch_block_l2(const void* base, long long ld, long long batch_stride, int batch,
                                                     int m0, int rows, int n0, int cols, int t) {
  const int lines_per_row = (cols * static_cast<int>(sizeof(T)) + 127) / 128 + 1;
#pragma unroll 1
  for (int i = t; i < rows * lines_per_row; i += Threads) {
    const int r = i / lines_per_row, l = i % lines_per_row;
    const T* row = static_cast<const T*>(base) + batch * batch_stride + static_cast<long long>(m0 + r) * ld + n0;
    const unsigned long long at = (reinterpret_cast<unsigned long long>(row) & ~127ull) + 128ull * l;
    if (at < reinterpret_cast<unsigned long long>(row + cols)) asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
  }
}

// The operands the epilogue reads for rows [m0, m0 + rows) and columns [n0, n0 + cols) of the caller's
// output (M x N), clipped at its edges.
template <int Threads>
__device__ __forceinline__ void tg_epilogue_prefetch(const tg_epilogue_args& ep, int m0, int rows, int n0, int cols,
                                                     int M, int N, int batch, int t) {
  using namespace tg_config;
  rows = min(rows, M - m0);
  cols = min(cols, N - n0);
  if (rows <= 0 || cols <= 0) return;
  if constexpr (EPILOGUE_BIAS_AXIS != 0) {
    const int first = EPILOGUE_BIAS_AXIS == 1 ? m0 : n0, count = EPILOGUE_BIAS_AXIS == 1 ? rows : cols;
    const tg_bias_t* begin = static_cast<const tg_bias_t*>(ep.bias) + batch * ep.batch_stride_bias + first;
    const unsigned long long end = reinterpret_cast<unsigned long long>(begin + count);
    for (unsigned long long at = (reinterpret_cast<unsigned long long>(begin) & ~127ull) + 128ull * t; at < end;
         at += 128ull * Threads) {
      asm volatile("prefetch.global.L1 [%0];" ::"l"(at));
    }
  }
  if constexpr (EPILOGUE_READS_C) {
    tg_prefetch_block_l2<tg_c_in_t, Threads>(ep.c, ep.ld_c, ep.batch_stride_c, batch, m0, rows, n0, cols, t);
  }
  if constexpr (EPILOGUE_READS_RESIDUAL) {
    tg_prefetch_block_l2<tg_residual_t, Threads>(ep.residual, ep.ld_residual, ep.batch_stride_residual, batch, m0, rows,
                                                 n0, cols, t);
  }
}
