// tilegrid kernel parts: a fused epilogue's application to a pair of values on their way to C, and the
// prefetch of its operands. Reads the configuration (HAS_EPILOGUE, EPILOGUE_*) and the printed
// tg_epilogue_value.
#pragma once

static_assert(tg_config::EPILOGUE_BIAS_AXIS >= 0 && tg_config::EPILOGUE_BIAS_AXIS <= 2, "a bias runs along m or n");
static_assert(tg_config::HAS_EPILOGUE || (!tg_config::EPILOGUE_AUX && tg_config::EPILOGUE_BIAS_AXIS == 0 &&
                                          !tg_config::EPILOGUE_READS_C && !tg_config::EPILOGUE_READS_RESIDUAL),
              "the identity epilogue reads and writes nothing");

// The values stored at kernel coordinates (m, n) and (m, n + 1): the accumulators v0, v1 through the
// printed tg_epilogue_value, in the caller's coordinates ((n, m) of the kernel's where it computes
// C^T), storing the auxiliary output beside. Elements outside M x N (the kernel's) read at the nearest
// element inside and are never stored: the reads never branch, so that the reads of the values a
// caller applies this to one after another are in flight together.
template <bool Transposed>
__device__ __forceinline__ void tg_epilogue_pair(float& v0, float& v1, const tg_epilogue_args& ep, int m, int n, int M,
                                                 int N, int batch) {
  using namespace tg_config;
  if constexpr (HAS_EPILOGUE) {
    const int mc = min(m, M - 1), n0c = min(n, N - 1), n1c = min(n + 1, N - 1);
    float aux0, aux1;
    v0 = Transposed ? tg_epilogue_value(v0, n0c, mc, batch, ep, aux0) : tg_epilogue_value(v0, mc, n0c, batch, ep, aux0);
    v1 = Transposed ? tg_epilogue_value(v1, n1c, mc, batch, ep, aux1) : tg_epilogue_value(v1, mc, n1c, batch, ep, aux1);
    if constexpr (EPILOGUE_AUX) {
      // Straight, the pair is adjacent in a row of aux (callers pass an even n).
      if (!Transposed && m < M && n + 1 < N) {
        tg_ep_store_aux_pair<tg_aux_t>(ep, m, n, batch, aux0, aux1);
        return;
      }
      if (m < M && n < N) {
        Transposed ? tg_ep_store_aux<tg_aux_t>(ep, n, m, batch, aux0) : tg_ep_store_aux<tg_aux_t>(ep, m, n, batch, aux0);
      }
      if (m < M && n + 1 < N) {
        Transposed ? tg_ep_store_aux<tg_aux_t>(ep, n + 1, m, batch, aux1) : tg_ep_store_aux<tg_aux_t>(ep, m, n + 1, batch, aux1);
      }
    }
  }
}

// A tile's epilogue reads its operands after the tile's main loop, where nothing hides the latency of
// global memory. Issued as the main loop starts, the bias vector's lines come into L1 (a few lines a
// tile, which TMA's traffic does not pass through) and the matrices' lines into L2, so that the
// epilogue's reads hit a near cache.
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
