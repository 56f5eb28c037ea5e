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
// With StoreAux false, the auxiliary output's pair is packed into *aux_pair instead (2-byte aux types
// only), for a caller that stores several pairs together (tg_store_aux_rows).
template <bool Transposed, bool StoreAux = true>
__device__ __forceinline__ void tg_epilogue_pair(float& v0, float& v1, const tg_epilogue_args& ep, int m, int n, int M,
                                                 int N, int batch, tg_u32* aux_pair = nullptr) {
  using namespace tg_config;
  if constexpr (HAS_EPILOGUE) {
    const int mc = min(m, M - 1), n0c = min(n, N - 1), n1c = min(n + 1, N - 1);
    float aux0, aux1;
    v0 = Transposed ? tg_epilogue_value(v0, n0c, mc, batch, ep, aux0) : tg_epilogue_value(v0, mc, n0c, batch, ep, aux0);
    v1 = Transposed ? tg_epilogue_value(v1, n1c, mc, batch, ep, aux1) : tg_epilogue_value(v1, mc, n1c, batch, ep, aux1);
    if constexpr (EPILOGUE_AUX && !StoreAux) {
      *aux_pair = tg_pack_pair<tg_aux_t>(aux0, aux1);
    } else if constexpr (EPILOGUE_AUX) {
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

// Whether a straight slab fill hands its aux pairs to tg_store_aux_rows: 2-byte aux elements, whose
// eight columns make one 16-byte store.
template <bool Transposed>
__device__ __forceinline__ constexpr bool tg_aux_by_rows() {
  if constexpr (tg_config::EPILOGUE_AUX) {
    return !Transposed && sizeof(tg_aux_t) == 2;
  } else {
    return false;
  }
}

// The auxiliary output of four pairs each lane of a quad (lanes 4q .. 4q + 3) holds: pair b of quad
// lane i is row row0 + (b % 2) * 8, columns col0 + (b / 2) * 8 + 2 i and + 1. In element pairs a warp's
// store covers eight rows with 16 bytes each, half of every 32-byte sector; here the quad's lanes trade
// pairs (three shuffles) so that lane i holds all eight columns of pair b = i, and stores them in one
// 16-byte access where they lie inside aux and the address is 16-byte aligned, element by element
// otherwise: a quarter of the store instructions, in whole sectors. Every lane of the warp calls it.
__device__ __forceinline__ void tg_store_aux_rows(const tg_epilogue_args& ep, const tg_u32 (&pairs)[4], int row0,
                                                  int col0, int M, int N, int batch, int lane) {
  if constexpr (tg_config::EPILOGUE_AUX) {
    const int i = lane % 4, quad = lane & ~3;
    tg_u32 mine[4];  // mine[k]: columns 2k and 2k + 1 of pair b = i, from quad lane k
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      // Lane i sends its pair for b = i + r to lane i + r, and receives from lane i - r its pair for b = i.
      const int to = (i + r) % 4, from = (i + 4 - r) % 4;
      const tg_u32 out = to == 0 ? pairs[0] : to == 1 ? pairs[1] : to == 2 ? pairs[2] : pairs[3];
      const tg_u32 in = r == 0 ? out : __shfl_sync(0xffffffffu, out, quad + from);
#pragma unroll
      for (int k = 0; k < 4; ++k) mine[k] = k == from ? in : mine[k];
    }
    const int m = row0 + (i % 2) * 8, n = col0 + (i / 2) * 8;
    if (m >= M) return;
    tg_aux_t* at = static_cast<tg_aux_t*>(ep.aux) + batch * ep.batch_stride_aux + m * ep.ld_aux + n;
    if (n + 7 < N && (reinterpret_cast<unsigned long long>(at) & 15) == 0) {
      *reinterpret_cast<uint4*>(at) = make_uint4(mine[0], mine[1], mine[2], mine[3]);
      return;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      if (n + e < N) reinterpret_cast<unsigned short*>(at)[e] = static_cast<unsigned short>(mine[e / 2] >> (16 * (e % 2)));
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
