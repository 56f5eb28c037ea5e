// tilegrid kernel parts: a fused epilogue's application to a pair of values on their way to C, and the
// prefetch of its operands. Reads the configuration (HAS_EPILOGUE, EPILOGUE_*) and the printed
// tg_epilogue_value.
#pragma once

static_assert(tg_config::EPILOGUE_BIAS_AXIS >= 0 && tg_config::EPILOGUE_BIAS_AXIS <= 2, "a bias runs along m or n");
static_assert(tg_config::HAS_EPILOGUE || (!tg_config::EPILOGUE_AUX && tg_config::EPILOGUE_BIAS_AXIS == 0 &&
                                          !tg_config::EPILOGUE_READS_C && !tg_config::EPILOGUE_READS_RESIDUAL),
              "the identity epilogue reads and writes nothing");

static_assert(tg_config::EPILOGUE_SCALE_A_AXIS == TG_VECTOR_NONE || tg_config::EPILOGUE_SCALE_A_AXIS == TG_VECTOR_M ||
                  tg_config::EPILOGUE_SCALE_A_AXIS == TG_VECTOR_ONE,
              "A's scales run along m or are one value");
static_assert(tg_config::EPILOGUE_SCALE_B_AXIS == TG_VECTOR_NONE || tg_config::EPILOGUE_SCALE_B_AXIS == TG_VECTOR_N ||
                  tg_config::EPILOGUE_SCALE_B_AXIS == TG_VECTOR_ONE,
              "B's scales run along n or are one value");

// The matrices' elements at (m, n) into `in`, each read on its own.
__device__ __forceinline__ void tg_ep_load_matrices(tg_ep_inputs& in, const tg_epilogue_args& ep, int m, int n,
                                                    int batch) {
  if constexpr (tg_config::EPILOGUE_READS_C) {
    in.c = tg_ep_matrix<tg_c_in_t>(ep.c, ep.ld_c, ep.batch_stride_c, m, n, batch);
  }
  if constexpr (tg_config::EPILOGUE_READS_RESIDUAL) {
    in.residual = tg_ep_matrix<tg_residual_t>(ep.residual, ep.ld_residual, ep.batch_stride_residual, m, n, batch);
  }
}

// A scale vector's element at (m, n): its row's or column's (`Axis`), or the tensor's one.
template <int Axis>
__device__ __forceinline__ float tg_ep_scale_at(const float* scale, long long batch_stride, int m, int n, int batch) {
  if constexpr (Axis == TG_VECTOR_ONE) {
    return tg_ep_scale(scale, 0, 0, 0);
  } else {
    return tg_ep_scale(scale, batch_stride, Axis == TG_VECTOR_M ? m : n, batch);
  }
}

// The vectors' elements at (m, n) into `in`, each read on its own.
__device__ __forceinline__ void tg_ep_load_vectors(tg_ep_inputs& in, const tg_epilogue_args& ep, int m, int n,
                                                   int batch) {
  using namespace tg_config;
  if constexpr (EPILOGUE_BIAS_AXIS != TG_VECTOR_NONE) {
    in.bias = tg_ep_vector<tg_bias_t>(ep, EPILOGUE_BIAS_AXIS == TG_VECTOR_M ? m : n, batch);
  }
  if constexpr (EPILOGUE_SCALE_A_AXIS != TG_VECTOR_NONE) {
    in.scale_a = tg_ep_scale_at<EPILOGUE_SCALE_A_AXIS>(ep.scale_a, ep.batch_stride_scale_a, m, n, batch);
  }
  if constexpr (EPILOGUE_SCALE_B_AXIS != TG_VECTOR_NONE) {
    in.scale_b = tg_ep_scale_at<EPILOGUE_SCALE_B_AXIS>(ep.scale_b, ep.batch_stride_scale_b, m, n, batch);
  }
}

// Every operand's element at (m, n), each read on its own.
__device__ __forceinline__ tg_ep_inputs tg_ep_load_inputs(const tg_epilogue_args& ep, int m, int n, int batch) {
  tg_ep_inputs in{};
  tg_ep_load_matrices(in, ep, m, n, batch);
  tg_ep_load_vectors(in, ep, m, n, batch);
  return in;
}

// The values stored at kernel coordinates (m, n) and (m, n + 1): the accumulators v0, v1 through the
// printed tg_epilogue_value, in the caller's coordinates ((n, m) of the kernel's where it computes
// C^T), storing the auxiliary output beside. Elements outside M x N (the kernel's) read at the nearest
// element inside and are never stored: the reads never branch, so that the reads of the values a
// caller applies this to one after another are in flight together.
// With StoreAux false, the auxiliary output's pair is packed into *aux_pair instead (2-byte aux types
// only), for a caller that stores several pairs together (tg_store_aux_rows). `inputs`, where given,
// holds the pair's operands that the caller read: the matrices' elements where MatricesGiven
// (tg_load_row_piece), the vectors' where VectorsGiven (tg_slab_vectors); the others are read here.
template <bool Transposed, bool StoreAux = true, bool MatricesGiven = false, bool VectorsGiven = false>
__device__ __forceinline__ void tg_epilogue_pair(float& v0, float& v1, const tg_epilogue_args& ep, int m, int n, int M,
                                                 int N, int batch, tg_u32* aux_pair = nullptr,
                                                 const tg_ep_inputs* inputs = nullptr) {
  using namespace tg_config;
  if constexpr (HAS_EPILOGUE) {
    const int mc = min(m, M - 1), n0c = min(n, N - 1), n1c = min(n + 1, N - 1);
    float aux0, aux1;
    const auto inputs_at = [&](int e, int mm, int nn) {
      tg_ep_inputs in = MatricesGiven || VectorsGiven ? inputs[e] : tg_ep_inputs{};
      const int cm = Transposed ? nn : mm, cn = Transposed ? mm : nn;  // the caller's coordinates
      if constexpr (!MatricesGiven) tg_ep_load_matrices(in, ep, cm, cn, batch);
      if constexpr (!VectorsGiven) tg_ep_load_vectors(in, ep, cm, cn, batch);
      return in;
    };
    v0 = Transposed ? tg_epilogue_value(v0, n0c, mc, batch, ep, inputs_at(0, mc, n0c), aux0)
                    : tg_epilogue_value(v0, mc, n0c, batch, ep, inputs_at(0, mc, n0c), aux0);
    v1 = Transposed ? tg_epilogue_value(v1, n1c, mc, batch, ep, inputs_at(1, mc, n1c), aux1)
                    : tg_epilogue_value(v1, mc, n1c, batch, ep, inputs_at(1, mc, n1c), aux1);
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

// A 4 x 4 transpose of 32-bit words within each quad of lanes (4q .. 4q + 3): quad lane i ends with
// out[k] = quad lane k's in[i]. Lane i sends its word for lane i + r and receives lane i - r's for
// itself, r = 1, 2, 3: three shuffles. Every lane of the warp calls it.
__device__ __forceinline__ void tg_quad_transpose(const tg_u32 (&in)[4], tg_u32 (&out)[4], int lane) {
  const int i = lane % 4, quad = lane & ~3;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int to = (i + r) % 4, from = (i + 4 - r) % 4;
    const tg_u32 word = to == 0 ? in[0] : to == 1 ? in[1] : to == 2 ? in[2] : in[3];
    const tg_u32 got = r == 0 ? word : __shfl_sync(0xffffffffu, word, quad + from);
#pragma unroll
    for (int k = 0; k < 4; ++k) out[k] = k == from ? got : out[k];
  }
}

// In a straight slab fill each quad of lanes holds four pairs a lane: pair b of quad lane i is row
// row0 + (b % 2) * 8, columns col0 + (b / 2) * 8 + 2 i and + 1 (the caller's coordinates). Element
// pairs make a warp's access eight rows of 16 bytes each, half of every 32-byte sector; after a quad
// transpose lane i holds all eight columns of pair b = i instead, one 16-byte access in whole sectors.

// Where pair b = i of quad lane i lies: its row and first column.
__device__ __forceinline__ void tg_quad_row_piece(int row0, int col0, int lane, int& m, int& n) {
  m = row0 + (lane % 4 % 2) * 8;
  n = col0 + (lane % 4 / 2) * 8;
}

// The auxiliary output of the quad's pairs (`pairs[b]`, packed 2-byte elements), stored in 16-byte
// pieces where the eight columns lie inside aux and the address is 16-byte aligned, else element by
// element.
__device__ __forceinline__ void tg_store_aux_rows(const tg_epilogue_args& ep, const tg_u32 (&pairs)[4], int row0,
                                                  int col0, int M, int N, int batch, int lane) {
  if constexpr (tg_config::EPILOGUE_AUX) {
    tg_u32 mine[4];  // mine[k]: columns 2k and 2k + 1 of this lane's piece
    tg_quad_transpose(pairs, mine, lane);
    int m, n;
    tg_quad_row_piece(row0, col0, lane, m, n);
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

// The other way: the quad's pieces of a matrix of 2-byte T (c or residual), each lane's piece read in
// one 16-byte access where it lies inside the matrix and is 16-byte aligned, else element by element
// at the nearest element inside, as the per-element reads do. A slab's pieces are all read before
// any is used (tg_quad_transpose then hands each lane its pairs), so that their latencies overlap.
template <typename T>
__device__ __forceinline__ void tg_load_row_piece(const void* base, long long ld, long long batch_stride, int row0,
                                                  int col0, int M, int N, int batch, int lane, tg_u32 (&piece)[4]) {
  static_assert(sizeof(T) == 2, "pieces of eight 2-byte elements");
  int m, n;
  tg_quad_row_piece(row0, col0, lane, m, n);
  const T* row = static_cast<const T*>(base) + batch * batch_stride + min(m, M - 1) * ld;
  if (n + 7 < N && (reinterpret_cast<unsigned long long>(row + n) & 15) == 0) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(row + n));
    piece[0] = v.x, piece[1] = v.y, piece[2] = v.z, piece[3] = v.w;
  } else {
    const unsigned short* bits = reinterpret_cast<const unsigned short*>(row);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      piece[k] = static_cast<tg_u32>(__ldg(bits + min(n + 2 * k, N - 1))) |
                 (static_cast<tg_u32>(__ldg(bits + min(n + 2 * k + 1, N - 1))) << 16);
    }
  }
}

// Whether a straight slab fill reads the epilogue's matrices in 16-byte pieces: each one it reads has
// 2-byte elements.
template <bool Transposed>
__device__ __forceinline__ constexpr bool tg_inputs_by_rows() {
  using namespace tg_config;
  if constexpr (Transposed || !(EPILOGUE_READS_C || EPILOGUE_READS_RESIDUAL)) {
    return false;
  } else {
    return (!EPILOGUE_READS_C || sizeof(tg_c_in_t) == 2) && (!EPILOGUE_READS_RESIDUAL || sizeof(tg_residual_t) == 2);
  }
}

// The matrices' elements of pair `b` of the quad's pieces (tg_load_row_piece, after tg_quad_transpose),
// unpacked into `in` for tg_epilogue_pair.
__device__ __forceinline__ void tg_unpack_inputs(const tg_u32 (&c)[4], const tg_u32 (&residual)[4], int b,
                                                 tg_ep_inputs (&in)[2]) {
  using namespace tg_config;
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    if constexpr (EPILOGUE_READS_C) {
      const unsigned short h = static_cast<unsigned short>(c[b] >> (16 * e));
      in[e].c = tg_dtype<tg_c_in_t>::to_float(*reinterpret_cast<const tg_c_in_t*>(&h));
    }
    if constexpr (EPILOGUE_READS_RESIDUAL) {
      const unsigned short h = static_cast<unsigned short>(residual[b] >> (16 * e));
      in[e].residual = tg_dtype<tg_residual_t>::to_float(*reinterpret_cast<const tg_residual_t*>(&h));
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
