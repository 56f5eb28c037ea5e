// tilegrid kernel parts: the sm_90 epilogue. A consumer warpgroup stores its rows of a tile in
// column slabs (tg_config::SLAB_N wide) through two shared-memory buffers (tg_smem_epilogue), by TMA
// where C's rows are whole 16-byte granules, else from the buffer a C row per warp. Slabs clip at M
// and N and drain while the next tile's main loop runs. A tile width that is not a whole number of
// slabs ends on a slab overlapping the one before: its columns are stored twice, with the same values.
// C's orientation is a type, the configuration's c_straight or c_transposed (`Ep`): its values say how
// that orientation's slab is filled and stored, and its tag (tg_c_orientation) picks the printed index
// functions of that orientation. An auxiliary output of 2-byte elements may take the same way beside C
// (AUX_BY_TMA): slab buffers of its own in C's layout, filled by the same stmatrix offsets and stored
// by TMA in C's boxes. Reads the configuration and the printed index functions.
#pragma once

// The epilogue's slab buffers in shared memory and the tensor maps TMA moves them through: C's, and
// the auxiliary output's and the input c's where the kernel has them (AUX_BY_TMA, C_IN_BY_TMA). Their
// buffers follow C's (AUX_SMEM_ELEMS, C_IN_SMEM_ELEMS), addressed from it.
struct tg_slab_buffers {
  tg_out_t* c;
  const tg_tensor_map* tmap_c;
  const tg_tensor_map* tmap_aux;
  // The input c's map and the full barriers of its buffers, two a consumer warpgroup (C_IN_BY_TMA).
  const tg_tensor_map* tmap_c_in;
  tg_u64* c_in_full;
};

// The first of a consumer warpgroup's rows in its tile: its share of the tile, or the whole tile where
// each warpgroup takes tiles of its own (PINGPONG). Its rows of the slab buffers start at consumer * WM
// either way.
__device__ __forceinline__ int tg_consumer_tile_row(int consumer) {
  return tg_config::PINGPONG ? 0 : consumer * tg_config::WM;
}

// The orientation's tag, which selects the printed index functions of C stored that way.
template <typename Ep>
using tg_c_tag = tg_c_orientation<Ep::TRANSPOSED>;

// Calls f(c_straight{}) or f(c_transposed{}): the orientation the kernel holds, or where it holds
// both (STRAIGHT_C and TRANSPOSED_C), the launch's (tg_problem::c_transposed). Each orientation gets
// its own instance of f.
template <typename F>
__device__ __forceinline__ void tg_with_c_orientation(const tg_problem& prob, F&& f) {
  using namespace tg_config;
  if constexpr (STRAIGHT_C && TRANSPOSED_C) {
    if (prob.c_transposed) {
      f(c_transposed{});
    } else {
      f(c_straight{});
    }
  } else if constexpr (TRANSPOSED_C) {
    f(c_transposed{});
  } else {
    f(c_straight{});
  }
}

// Where a tile lies in the kernel's problem (M x N), for the fused epilogue: its first row and column,
// and its batch entry.
struct tg_tile_place {
  const tg_problem* prob;
  int m0, n0, M, N, batch;
};

// The values stored at (row, col) and (row, col + 1) of the tile (tg_epilogue_pair), applied as a slab
// is filled, so that its reads and special functions stay beside the slab's stores, a slab's operands
// in registers at a time (applied over a whole tile at once, the largest tiles spilled).
template <typename Ep, bool StoreAux = true, bool MatricesGiven = false, bool VectorsGiven = false>
__device__ __forceinline__ void tg_tile_epilogue_pair(float& v0, float& v1, const tg_tile_place& at, int row, int col,
                                                      tg_u32* aux_pair = nullptr, const tg_ep_inputs* inputs = nullptr) {
  tg_epilogue_pair<Ep::TRANSPOSED, StoreAux, MatricesGiven, VectorsGiven>(
      v0, v1, at.prob->epilogue, at.m0 + row, at.n0 + col, at.M, at.N, at.batch, aux_pair, inputs);
}

// One epilogue vector (elements of T from `base`, the batch entry's) at a lane's elements of a slab of
// Blocks 8-column blocks and MBlocks 64-row blocks. `Axis` says where it runs in the kernel's terms
// (TG_VECTOR_*): along its columns the lane's pair of columns in each block (col + 8 p and + 1), in one
// access where the lane's every pair lies inside and is aligned for it; along its rows the lane's two
// rows of each row block (row + 64 mb and + 8); or the tensor's one value. Read per element instead,
// a column's value was read once for each of the lane's rows, and a tensor's value for every element.
template <typename T, int Axis, int Blocks, int MBlocks>
struct tg_lane_vector {
  using pair = typename tg_dtype<T>::pair;
  // Along the columns, the lane's pairs as read (a 2-byte type's pair in one register), converted
  // where they are used: two slabs' sets stay live across a slab, beside the accumulators.
  pair raw[Axis == TG_VECTOR_N ? Blocks : 1];
  float v[Axis == TG_VECTOR_M ? MBlocks : 1][2];

  __device__ __forceinline__ void read(const T* base, int row, int col, int M, int N) {
    if constexpr (Axis == TG_VECTOR_N) {
      if (col + 8 * (Blocks - 1) + 1 < N && reinterpret_cast<unsigned long long>(base + col) % sizeof(pair) == 0) {
#pragma unroll
        for (int p = 0; p < Blocks; ++p) raw[p] = __ldg(reinterpret_cast<const pair*>(base + col + 8 * p));
      } else {
#pragma unroll
        for (int p = 0; p < Blocks; ++p) {
          raw[p] = tg_dtype<T>::from_floats(tg_dtype<T>::to_float(__ldg(base + min(col + 8 * p, N - 1))),
                                            tg_dtype<T>::to_float(__ldg(base + min(col + 8 * p + 1, N - 1))));
        }
      }
    } else if constexpr (Axis == TG_VECTOR_M) {
#pragma unroll
      for (int mb = 0; mb < MBlocks; ++mb) {
#pragma unroll
        for (int h = 0; h < 2; ++h) v[mb][h] = tg_dtype<T>::to_float(__ldg(base + min(row + 64 * mb + 8 * h, M - 1)));
      }
    } else if constexpr (Axis == TG_VECTOR_ONE) {
      v[0][0] = tg_dtype<T>::to_float(__ldg(base));
    }
  }
  // The value at element e of the lane's pair in column block p, row block mb, row half h.
  __device__ __forceinline__ float at(int p, int mb, int h, int e) const {
    if constexpr (Axis == TG_VECTOR_N) {
      float v0, v1;
      tg_dtype<T>::to_floats(raw[p], v0, v1);
      return e == 0 ? v0 : v1;
    } else {
      return Axis == TG_VECTOR_M ? v[mb][h] : v[0][0];
    }
  }
};

// The kernel's axis of a vector running along the caller's `axis`: the other one where the kernel
// computes C^T.
template <bool Transposed>
__device__ __forceinline__ constexpr int tg_kernel_axis(int axis) {
  return !Transposed || axis == TG_VECTOR_NONE || axis == TG_VECTOR_ONE ? axis
         : axis == TG_VECTOR_M                                         ? TG_VECTOR_N
                                                                       : TG_VECTOR_M;
}

// Whether the fused epilogue reads vectors (a bias, A's or B's scales), which the slab fills take
// read (tg_slab_vectors).
constexpr bool tg_epilogue_reads_vectors =
    tg_config::HAS_EPILOGUE &&
    (tg_config::EPILOGUE_BIAS_AXIS != TG_VECTOR_NONE || tg_config::EPILOGUE_SCALE_A_AXIS != TG_VECTOR_NONE ||
     tg_config::EPILOGUE_SCALE_B_AXIS != TG_VECTOR_NONE);

// The epilogue's vectors (bias, A's and B's scales) at a lane's elements of a slab of a warpgroup's
// rows: the lane's first element of the slab is (row, col) in the kernel's terms, in the tile at `at`.
template <bool Transposed, int Blocks, int MBlocks>
struct tg_slab_vectors {
  tg_lane_vector<tg_bias_t, tg_kernel_axis<Transposed>(tg_config::EPILOGUE_BIAS_AXIS), Blocks, MBlocks> bias;
  tg_lane_vector<float, tg_kernel_axis<Transposed>(tg_config::EPILOGUE_SCALE_A_AXIS), Blocks, MBlocks> scale_a;
  tg_lane_vector<float, tg_kernel_axis<Transposed>(tg_config::EPILOGUE_SCALE_B_AXIS), Blocks, MBlocks> scale_b;

  __device__ __forceinline__ void read(const tg_tile_place& at, int row, int col) {
    using namespace tg_config;
    const tg_epilogue_args& ep = at.prob->epilogue;
    const auto entry = [&](int axis, long long batch_stride) { return axis == TG_VECTOR_ONE ? 0 : at.batch * batch_stride; };
    bias.read(static_cast<const tg_bias_t*>(ep.bias) + entry(EPILOGUE_BIAS_AXIS, ep.batch_stride_bias), row, col, at.M, at.N);
    scale_a.read(ep.scale_a + entry(EPILOGUE_SCALE_A_AXIS, ep.batch_stride_scale_a), row, col, at.M, at.N);
    scale_b.read(ep.scale_b + entry(EPILOGUE_SCALE_B_AXIS, ep.batch_stride_scale_b), row, col, at.M, at.N);
  }
  // The values of the lane's pair in column block p, row block mb, row half h, into in[0] and in[1].
  __device__ __forceinline__ void give(tg_ep_inputs (&in)[2], int p, int mb, int h) const {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      in[e].bias = bias.at(p, mb, h, e);
      in[e].scale_a = scale_a.at(p, mb, h, e);
      in[e].scale_b = scale_b.at(p, mb, h, e);
    }
  }
};

// Writes 64-row block `mb` of the warpgroup's accumulators, columns [col0, col0 + SLAB_N) of its tile,
// into slab buffer `buffer`. wgmma's accumulator layout: in every 8-column block j, thread (warp, lane)
// holds rows warp * 16 + lane / 4 (+ 8) of the block and columns 8 j + 2 (lane % 4) (+ 1), at
// acc[4 j + 2 half + e]. Block mb's rows reach the buffer through the row (Ep::BLOCK_STEP 0) or,
// where the scheduler found every element of block mb a constant step past block 0's, by adding that
// step to the offset, which ptxas folds into the store. AuxTma: the auxiliary output goes into its own
// slab at the same offsets, for the TMA store beside C's. Its buffers follow C's in shared memory
// (the kernel's layout), C_SMEM_ELEMS 2-byte elements on: a constant past each C address, which
// ptxas folds into the store as well (a pointer of its own cost the largest tiles a spill). CTma: the
// input c lies in its own slab (after C's and aux's buffers), loaded by TMA: each lane reads its pairs
// by ldmatrix at the offsets it stores C's at. `vectors`: the epilogue's vectors at the lane's
// elements of the slab (tg_slab_vectors), read ahead by the caller.
template <typename Ep, bool AuxTma, bool CTma, int Regs, typename Vectors>
__device__ __forceinline__ void tg_fill_slab_block(const float (&acc)[Regs], tg_out_t* smem_c, int mb, int col0,
                                                   int consumer, int warp, int lane, int buffer,
                                                   const tg_tile_place& at, const Vectors& vectors) {
  using namespace tg_config;
  constexpr tg_c_tag<Ep> c;
  // The block's rows in the tile, for the epilogue.
  const int tile_row = tg_consumer_tile_row(consumer) + mb * 64 + warp * 16 + lane / 4;
  const int first_row = consumer * WM + (Ep::BLOCK_STEP == 0 ? mb * 64 : 0) + warp * 16;
  tg_out_t* const slab = smem_c + (Ep::BLOCK_STEP == 0 ? 0 : mb * Ep::BLOCK_STEP);
  static_assert(!AuxTma || (Ep::STMATRIX && !Ep::TRANSPOSED && tg_aux_by_rows<false>() && sizeof(tg_out_t) == 2),
                "the auxiliary output's slab is filled by stmatrix beside a straight C's (MatmulParams::auxSlab)");
  static_assert(!CTma || (Ep::STMATRIX && !Ep::TRANSPOSED && EPILOGUE_READS_C && !EPILOGUE_READS_RESIDUAL &&
                          sizeof(tg_c_in_t) == 2 && sizeof(tg_out_t) == 2),
                "the input c's slab is read by ldmatrix beside a straight C's (MatmulParams::cSlab)");
  if constexpr (Ep::STMATRIX) {
    constexpr bool AUX_BY_ROWS = tg_aux_by_rows<Ep::TRANSPOSED>();
    constexpr bool INPUTS_BY_ROWS = !CTma && tg_inputs_by_rows<Ep::TRANSPOSED>(), INPUTS_GIVEN = INPUTS_BY_ROWS || CTma;
    // The epilogue's matrices, where read in pieces: the slab's pieces, all in flight together.
    constexpr int PIECES = SLAB_N >= 16 ? SLAB_N / 16 : 1;  // a lane's pieces a slab (one in an 8-wide slab)
    [[maybe_unused]] tg_u32 c_pieces[PIECES][4], residual_pieces[PIECES][4];
    if constexpr (INPUTS_BY_ROWS) {
      const tg_epilogue_args& ep = at.prob->epilogue;
#pragma unroll
      for (int j = 0; j < SLAB_N / 8; j += 2) {
        const int row0 = at.m0 + tile_row, piece0 = at.n0 + col0 + j * 8;
        if constexpr (EPILOGUE_READS_C) {
          tg_load_row_piece<tg_c_in_t>(ep.c, ep.ld_c, ep.batch_stride_c, row0, piece0, at.M, at.N, at.batch, lane,
                                       c_pieces[j / 2]);
        }
        if constexpr (EPILOGUE_READS_RESIDUAL) {
          tg_load_row_piece<tg_residual_t>(ep.residual, ep.ld_residual, ep.batch_stride_residual, row0, piece0, at.M,
                                           at.N, at.batch, lane, residual_pieces[j / 2]);
        }
      }
    }
    constexpr bool VECTORS = tg_epilogue_reads_vectors;
    // A quarter of the store instructions of element pairs. Lane l addresses row l % 8 of block
    // l / 8 as stored: of the warp's rows when straight, of the block's columns when transposed.
#pragma unroll
    for (int j = 0; j < SLAB_N / 8; j += 2) {
      // Blocks (rows 0-7, columns j), (rows 8-15, j), (0-7, j + 1), (8-15, j + 1) of the warp's rows.
      tg_u32 r[4];
      [[maybe_unused]] tg_u32 aux_pairs[4], c_pairs[4], residual_pairs[4];
      if constexpr (INPUTS_BY_ROWS) {
        if constexpr (EPILOGUE_READS_C) tg_quad_transpose(c_pieces[j / 2], c_pairs, lane);
        if constexpr (EPILOGUE_READS_RESIDUAL) tg_quad_transpose(residual_pieces[j / 2], residual_pairs, lane);
      }
      if constexpr (CTma) {
        // The stmatrix below in reverse: c's pairs lie as r's will.
        const int m = first_row + lane % 8 + (lane / 8) % 2 * 8, n = (j + lane / 16) * 8;
        tg_ldmatrix_x4(c_pairs, slab + tg_smem_epilogue(c, m, n, buffer) + C_SMEM_ELEMS + AUX_SMEM_ELEMS);
      }
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int a = 4 * (col0 / 8 + j + b / 2) + 2 * (b % 2);
        float v0 = acc[a], v1 = acc[a + 1];
        [[maybe_unused]] tg_ep_inputs inputs[2] = {};
        if constexpr (INPUTS_GIVEN) tg_unpack_inputs(c_pairs, residual_pairs, b, inputs);
        if constexpr (VECTORS) vectors.give(inputs, j + b / 2, mb, b % 2);
        tg_tile_epilogue_pair<Ep, !AUX_BY_ROWS, INPUTS_GIVEN, VECTORS>(v0, v1, at, tile_row + (b % 2) * 8,
                                                                       col0 + (j + b / 2) * 8 + (lane % 4) * 2,
                                                                       &aux_pairs[b], inputs);
        r[b] = tg_pack_pair<tg_out_t>(v0, v1);
      }
      if constexpr (AUX_BY_ROWS && !AuxTma) {
        tg_store_aux_rows(at.prob->epilogue, aux_pairs, at.m0 + tile_row, at.n0 + col0 + j * 8, at.M, at.N, at.batch,
                          lane);
      }
      if constexpr (Ep::TRANSPOSED) {
        const int m = first_row + (lane / 8) % 2 * 8, n = (j + lane / 16) * 8 + lane % 8;
        tg_stmatrix_x4_trans(slab + tg_smem_epilogue(c, m, n, buffer), r);
      } else {
        const int m = first_row + lane % 8 + (lane / 8) % 2 * 8, n = (j + lane / 16) * 8;
        const int offset = tg_smem_epilogue(c, m, n, buffer);
        tg_stmatrix_x4(slab + offset, r);
        // The aux pairs lie as r's: the same blocks at the same offsets of the aux slab.
        if constexpr (AuxTma) tg_stmatrix_x4(slab + offset + C_SMEM_ELEMS, aux_pairs);
      }
    }
  } else if constexpr (Ep::TRANSPOSED) {
    // A thread's pair of columns is not contiguous in the transposed slab: one element at a time.
#pragma unroll
    for (int j = 0; j < SLAB_N / 8; ++j) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int a = 4 * (col0 / 8 + j) + 2 * half;
        float v[2] = {acc[a], acc[a + 1]};
        tg_tile_epilogue_pair<Ep>(v[0], v[1], at, tile_row + half * 8, col0 + j * 8 + (lane % 4) * 2);
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int m = first_row + lane / 4 + half * 8, n = j * 8 + (lane % 4) * 2 + e;
          slab[tg_smem_epilogue(c, m, n, buffer)] = tg_dtype<tg_out_t>::from_float(v[e]);
        }
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < SLAB_N / 8; ++j) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int m = first_row + lane / 4 + half * 8, n = j * 8 + (lane % 4) * 2;
        const int a = 4 * (col0 / 8 + j) + 2 * half;
        float v0 = acc[a], v1 = acc[a + 1];
        tg_tile_epilogue_pair<Ep>(v0, v1, at, tile_row + half * 8, col0 + j * 8 + (lane % 4) * 2);
        tg_store_pair(slab + tg_smem_epilogue(c, m, n, buffer), v0, v1);
      }
    }
  }
}

// The TMA stores of a filled slab, issued by the warpgroup's first thread: one box of the warpgroup's
// rows straight; stored transposed, one box per Ep::BOX_ROWS of those rows (C's columns). The tile's
// first column is n0.
// The same offsets serve the auxiliary output's slab (T = tg_aux_t, its map): it has C's layout.
template <typename Ep, typename T>
__device__ __forceinline__ void tg_store_slab_tma(const tg_tensor_map* tmap_c, const T* smem_c, int tile_m,
                                                  int n0, int batch, int consumer, int col0, int buffer) {
  using namespace tg_config;
  const auto store = [&](int c0, int c1, const T* src) {
    if constexpr (BATCHED) {
      tg_tma_store_3d(tmap_c, c0, c1, batch, src);
    } else {
      tg_tma_store_2d(tmap_c, c0, c1, src);
    }
  };
  constexpr tg_c_tag<Ep> c;
  if constexpr (Ep::TRANSPOSED) {
#pragma unroll
    for (int box = 0; box < WM / Ep::BOX_ROWS; ++box) {
      const int m = box * Ep::BOX_ROWS;
      store(tile_m * BM + tg_consumer_tile_row(consumer) + m, n0 + col0,
            smem_c + tg_smem_epilogue(c, consumer * WM + m, 0, buffer));
    }
  } else {
    store(n0 + col0, tile_m * BM + tg_consumer_tile_row(consumer),
          smem_c + tg_smem_epilogue(c, consumer * WM, 0, buffer));
  }
}

// Stores of a filled slab from shared memory where TMA cannot store C: a warp per C row, consecutive
// elements from consecutive lanes. C's rows are the slab's rows straight, its columns transposed.
// Where the scheduler's algebra shows C's offset stepping by 1 along a row (Ep::ROW_CONTIGUOUS), a warp
// computes the row's start once and indexes it by the column (the full offset is a 64-bit product
// with a leading dimension read at launch). The batch entry's offset is added where it is used: a
// pointer to it kept across the slabs cost the consumers registers.
template <typename Ep>
__device__ __forceinline__ void tg_store_slab_direct(tg_out_t* C, const tg_out_t* smem_c, const tg_problem& prob,
                                                     int M, int N, int batch, int tile_m, int n0, int consumer,
                                                     int warp, int lane, int col0, int buffer) {
  using namespace tg_config;
  constexpr tg_c_tag<Ep> c;
  // Straight, a warp's lanes walk n along a C row m; transposed, they walk m along a column n.
  constexpr int ROWS = Ep::TRANSPOSED ? SLAB_N : WM, COLS = Ep::TRANSPOSED ? WM : SLAB_N;
#pragma unroll 4
  for (int r = warp; r < ROWS; r += 4) {
    const int m_row = tile_m * BM + tg_consumer_tile_row(consumer) + r, n_col = n0 + col0 + r;
    if (Ep::TRANSPOSED ? n_col >= N : m_row >= M) break;
    const long long batch_offset =
        static_cast<long long>(batch) * (SHAPE_AT_LAUNCH ? prob.batch_stride_c : FIXED_BATCH_STRIDE_C);
    tg_out_t* row_start = nullptr;
    if constexpr (Ep::ROW_CONTIGUOUS) {
      row_start = C + batch_offset + (Ep::TRANSPOSED ? tg_gmem_c(c, prob, 0, n_col) : tg_gmem_c(c, prob, m_row, 0));
    }
#pragma unroll
    for (int e = lane; e < COLS; e += 32) {
      const int m = Ep::TRANSPOSED ? tile_m * BM + tg_consumer_tile_row(consumer) + e : m_row;
      const int n = Ep::TRANSPOSED ? n_col : n0 + col0 + e;
      if (Ep::TRANSPOSED ? m >= M : n >= N) continue;
      const tg_out_t v = Ep::TRANSPOSED ? smem_c[tg_smem_epilogue(c, consumer * WM + e, r, buffer)]
                                        : smem_c[tg_smem_epilogue(c, consumer * WM + r, e, buffer)];
      if constexpr (Ep::ROW_CONTIGUOUS) {
        row_start[Ep::TRANSPOSED ? m : n] = v;
      } else {
        C[batch_offset + tg_gmem_c(c, prob, m, n)] = v;
      }
    }
  }
}

// Whether the kernel reads the input c through slab buffers of its own where C goes in orientation
// `Ep`: beside a straight C stored by TMA (MatmulParams::cSlab). The launch's c_by_tma then picks the
// epilogue's instance that does.
template <typename Ep>
constexpr bool tg_c_in_slab = tg_config::C_IN_BY_TMA && tg_config::TMA_STORE_C && !Ep::TRANSPOSED;

// The slabs of a TileN-wide tile, and the first column of slab `slab`: the last one ends at the tile's
// edge (overlapping the one before where SLAB_N does not divide TileN).
template <int TileN>
constexpr int tg_tile_slabs = (TileN + tg_config::SLAB_N - 1) / tg_config::SLAB_N;
template <int TileN>
__device__ __forceinline__ int tg_slab_col0(int slab) {
  return slab < tg_tile_slabs<TileN> - 1 ? slab * tg_config::SLAB_N : TileN - tg_config::SLAB_N;
}

// Issued by the warpgroup's first thread: the TMA load of the input c's box of slab `slab` of the tile
// into the c buffer of the warpgroup's slab number `use`, completing that buffer's full barrier.
template <typename Ep, int TileN>
__device__ __forceinline__ void tg_load_c_slab(const tg_slab_buffers& smem, int tile_m, int tile_n, int batch,
                                               int consumer, int slab, int use) {
  using namespace tg_config;
  constexpr tg_c_tag<Ep> c;
  const int buffer = use % 2;
  tg_u64* full = &smem.c_in_full[consumer * 2 + buffer];
  tg_mbarrier_arrive_expect_tx(full, C_IN_BOX_BYTES);
  void* dst = smem.c + C_SMEM_ELEMS + AUX_SMEM_ELEMS + tg_smem_epilogue(c, consumer * WM, 0, buffer);
  const int c0 = tile_n * TileN + tg_slab_col0<TileN>(slab), c1 = tile_m * BM + tg_consumer_tile_row(consumer);
  if constexpr (BATCHED) {
    tg_tma_load_3d(dst, smem.tmap_c_in, c0, c1, batch, full);
  } else {
    tg_tma_load_2d(dst, smem.tmap_c_in, c0, c1, full);
  }
}

// Where the input c's first two slabs of a tile are loaded: as the tile's main loop starts in
// cooperative kernels, whose epilogue otherwise waits for them with the tensor cores idle; as the
// epilogue starts in ping-pong kernels, whose epilogue overlaps the other warpgroup's main loop (there
// issuing them ahead delays the warpgroup's own main loop instead).
constexpr bool tg_c_loaded_ahead = !tg_config::PINGPONG;

// The input c's first two slabs of a tile whose epilogue this warpgroup runs (thread 0). Issued ahead,
// both of the warpgroup's c buffers were read by the end of its previous tile's epilogue (its last
// barrier there follows the reads and their proxy fence), so the loads wait for nothing.
template <typename Ep, int TileN>
__device__ __forceinline__ void tg_load_c_ahead(const tg_slab_buffers& smem, int tile_m, int tile_n, int batch,
                                                int consumer, int slabs) {
  tg_load_c_slab<Ep, TileN>(smem, tile_m, tile_n, batch, consumer, 0, slabs);
  if constexpr (tg_tile_slabs<TileN> > 1) tg_load_c_slab<Ep, TileN>(smem, tile_m, tile_n, batch, consumer, 1, slabs + 1);
}

// The epilogue of one tile for one consumer warpgroup. `slabs` counts the slabs the warpgroup has
// stored, over all its tiles: it picks the buffer. ByTma: TMA stores C (launches whose C rows and
// batch entries are whole 16-byte granules, tg_problem::c_by_tma); otherwise the threads do. A
// kernel carries both and the launch picks one per tile: each instantiation keeps its own register
// peak, where one body branching per slab spilled in the largest tiles. AuxTma (with ByTma): the
// auxiliary output's slab is stored by TMA beside C's, in the same bulk group, so that one wait
// frees both buffers. The tile is TileN columns wide, the leading TileN / 2 accumulators of each
// block (a kernel holding several widths keeps the widest's). C is stored in the orientation `Ep`
// (tg_with_c_orientation), each value through the fused epilogue where the configuration has one
// (tg_fill_slab_block). CTma (with ByTma): the input c comes into its own slab buffers by TMA, each
// slab's box two slabs ahead (the first two as the tile's main loop or its epilogue starts,
// tg_c_loaded_ahead), the buffer's full barrier completing a phase per use: the `slabs` count gives
// its parity.
template <typename Ep, bool ByTma, int TileN, bool AuxTma, bool CTma, int MBlocks, int Regs>
__device__ __forceinline__ void tg_epilogue(const float (&acc)[MBlocks][Regs], const tg_slab_buffers& smem,
                                            tg_out_t* C, const tg_problem& prob, int M, int N, int tile_m, int tile_n,
                                            int batch, int consumer, int t, int& slabs) {
  using namespace tg_config;
  static_assert(ByTma || (!AuxTma && !CTma), "the epilogue's matrices go by TMA beside C's TMA stores");
  const int warp = t / 32, lane = t % 32;
  static_assert(TileN <= 2 * Regs && TileN >= SLAB_N, "the tile's columns are accumulators, a slab or more");
  constexpr int SLABS = tg_tile_slabs<TileN>;
  const int n0 = tile_n * TileN;
  const tg_tile_place at{&prob, tile_m * BM, n0, M, N, batch};
  if constexpr (CTma && !tg_c_loaded_ahead) {
    if (t == 0) tg_load_c_ahead<Ep, TileN>(smem, tile_m, tile_n, batch, consumer, slabs);
  }
  // The epilogue's vectors at the lane's elements, a slab ahead: a slab's reads are in flight while
  // the slab before it is filled and stored, rather than waited for between the slab's barrier and
  // its first value. (Two sets in registers; the slab loop is unrolled.) Fills by stmatrix take them;
  // the element-by-element fills (4-byte C, or C transposed without stmatrix) read each element's.
  [[maybe_unused]] tg_slab_vectors<Ep::TRANSPOSED, SLAB_N / 8, MBlocks> vectors[2];
  const auto read_vectors = [&](int slab) TG_INLINE {
    if constexpr (tg_epilogue_reads_vectors && Ep::STMATRIX) {
      if (slab < SLABS) {
        vectors[slab % 2].read(at, at.m0 + tg_consumer_tile_row(consumer) + warp * 16 + lane / 4,
                               n0 + tg_slab_col0<TileN>(slab) + (lane % 4) * 2);
      }
    }
  };
  read_vectors(0);
#pragma unroll
  for (int slab = 0; slab < SLABS; ++slab, ++slabs) {
    const int col0 = tg_slab_col0<TileN>(slab);
    const int buffer = slabs % 2;
    read_vectors(slab + 1);
    if constexpr (ByTma) {
      // The stores issued from this buffer two slabs ago must have read it.
      if (t == 0) tg_tma_store_wait_read<1>();
      tg_named_barrier_sync(1 + consumer, 128);
      if constexpr (CTma) tg_mbarrier_wait(&smem.c_in_full[consumer * 2 + buffer], (slabs / 2) % 2);
#pragma unroll
      for (int mb = 0; mb < MBlocks; ++mb) {
        tg_fill_slab_block<Ep, AuxTma, CTma>(acc[mb], smem.c, mb, col0, consumer, warp, lane, buffer, at,
                                             vectors[slab % 2]);
      }
      // Also orders the reads of c's buffer before the TMA load issued into it below.
      tg_fence_proxy_async();
      tg_named_barrier_sync(1 + consumer, 128);
      if (t == 0) {
        if constexpr (CTma) {
          if (slab + 2 < SLABS) tg_load_c_slab<Ep, TileN>(smem, tile_m, tile_n, batch, consumer, slab + 2, slabs + 2);
        }
        tg_store_slab_tma<Ep>(smem.tmap_c, smem.c, tile_m, n0, batch, consumer, col0, buffer);
        if constexpr (AuxTma) {
          tg_store_slab_tma<Ep>(smem.tmap_aux, reinterpret_cast<const tg_aux_t*>(smem.c + C_SMEM_ELEMS), tile_m, n0, batch,
                                consumer, col0, buffer);
        }
        tg_tma_store_commit();
      }
    } else {
#pragma unroll
      for (int mb = 0; mb < MBlocks; ++mb) {
        tg_fill_slab_block<Ep, false, false>(acc[mb], smem.c, mb, col0, consumer, warp, lane, buffer, at,
                                             vectors[slab % 2]);
      }
      tg_named_barrier_sync(1 + consumer, 128);
      tg_store_slab_direct<Ep>(C, smem.c, prob, M, N, batch, tile_m, n0, consumer, warp, lane, col0, buffer);
      // The buffer is written again two slabs on; every lane must have read it by then.
      tg_named_barrier_sync(1 + consumer, 128);
    }
  }
}
