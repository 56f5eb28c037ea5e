// tilegrid kernel parts: the sm_80 operand tiles, copied by cp.async and read by ldmatrix. Reads the
// kernel's configuration (tg_config::operand_a and operand_b) and the index functions printed from its
// IR, so a generated source pastes it after both. The structures the scheduler derived by algebra on
// the smem and copy domains (tilegrid/codegen/sm80_emitter.cpp) pick the variants here.
#pragma once

// The printed index functions of operand A or B.
template <bool IsA>
__device__ __forceinline__ int tg_operand_smem(int mn, int k, int stage) {
  if constexpr (IsA) {
    return tg_smem_a(mn, k, stage);
  } else {
    return tg_smem_b(mn, k, stage);
  }
}

template <bool IsA>
__device__ __forceinline__ auto tg_operand_gmem(const tg_problem& p, int mn, int k) {
  if constexpr (IsA) {
    return tg_gmem_a(p, mn, k);
  } else {
    return tg_gmem_b(p, mn, k);
  }
}

template <bool IsA>
__device__ __forceinline__ void tg_operand_gmem_steps(const tg_problem& p, long long& mn_step, long long& k_step) {
  if constexpr (IsA) {
    tg_gmem_a_steps(p, mn_step, k_step);
  } else {
    tg_gmem_b_steps(p, mn_step, k_step);
  }
}

template <bool IsA>
__device__ __forceinline__ void tg_operand_copy(int it, int tid, int& row, int& col, bool& valid) {
  if constexpr (IsA) {
    tg_copy_a(it, tid, row, col, valid);
  } else {
    tg_copy_b(it, tid, row, col, valid);
  }
}

// ---- copies ----
// Each thread copies the 16-byte pieces (8 elements) tg_copy_x assigns it, Op::ITERS of them a K
// tile. Rows of an operand's copy tile run along MN when it is K-major, along K otherwise. Where every
// iteration's piece is iteration 0's moved by constants (Op::STEPPED, checked by the scheduler for
// every thread), a thread computes its first piece once (the cursor) and steps by constants, and one
// source pointer steps by the global offset's linear steps (tg_gmem_x_steps: constants, or from
// leading dimensions read at launch). Otherwise each piece is indexed in full.
template <typename Op>
struct tg_copy_cursor {
  int mn = 0, k = 0, dst = 0;  // the thread's first piece and its smem offset in stage 0
  bool ok = false;             // the thread has pieces
  tg_u32 dst_addr = 0;         // whole pieces: the shared address of `dst`
  long long mn_step = 0, k_step = 0, it_step = 0;
  const tg_in_t* src = nullptr;  // the first piece's source at K 0 in the bound tile
};

template <typename Op>
__device__ __forceinline__ void tg_copy_setup(tg_copy_cursor<Op>& c, const tg_problem& prob, tg_in_t* smem) {
  if constexpr (Op::STEPPED) {
    int row, col;
    tg_operand_copy<Op::IS_A>(0, threadIdx.x, row, col, c.ok);
    c.mn = Op::K_MAJOR ? row : col;
    c.k = Op::K_MAJOR ? col : row;
    c.dst = tg_operand_smem<Op::IS_A>(c.mn, c.k, 0);
    // Whole 16-byte pieces go to a 32-bit shared address: a stage and an iteration are then
    // constants added to one register. Narrower pieces address their parts through the pointer.
    if constexpr (Op::VEC == 8) c.dst_addr = tg_smem_addr(smem + c.dst);
    tg_operand_gmem_steps<Op::IS_A>(prob, c.mn_step, c.k_step);
    c.it_step = Op::D_MN * c.mn_step + Op::D_K * c.k_step;
  }
}

// Binds the cursor to the tile at `origin` along MN of the operand at `base` (its batch entry).
template <typename Op>
__device__ __forceinline__ void tg_copy_bind(tg_copy_cursor<Op>& c, const tg_in_t* base, int origin) {
  if constexpr (Op::STEPPED) {
    c.src = base + static_cast<long long>(origin + c.mn) * c.mn_step + static_cast<long long>(c.k) * c.k_step;
  }
}

// Moves one piece: `avail` of its 8 elements lie inside the matrix; the rest of the destination is
// zero-filled.
template <int Vec>
__device__ __forceinline__ void tg_move_piece(tg_in_t* dst, const tg_in_t* src, int avail) {
  if constexpr (Vec == 8) {
    tg_cp_async<16>(dst, src, avail * 2);
  } else if constexpr (Vec >= 2) {
    // Narrower asynchronous copies where the leading dimension is only Vec-aligned.
#pragma unroll
    for (int part = 0; part < 8; part += Vec) {
      const int part_avail = min(max(avail - part, 0), Vec);
      tg_cp_async<Vec * 2>(dst + part, part_avail > 0 ? src + part : src, part_avail * 2);
    }
  } else {
    // 2-byte alignment: cp.async copies at least 4 bytes, so gather the piece by hand into registers
    // (pairs of elements per word: an array of shorts would live on the stack) and store it to
    // shared memory as one 16-byte write.
    const unsigned short* src16 = reinterpret_cast<const unsigned short*>(src);
    tg_u32 word[4];
#pragma unroll
    for (int e = 0; e < 8; e += 2) {
      const tg_u32 lo = e < avail ? src16[e] : 0u, hi = e + 1 < avail ? src16[e + 1] : 0u;
      word[e / 2] = lo | (hi << 16);
    }
    *reinterpret_cast<uint4*>(dst) = make_uint4(word[0], word[1], word[2], word[3]);
  }
}

// One K tile (from k0) of the operand's tile at `origin` along MN into `stage`. Only `checked` K tiles
// (those reaching past an edge) test the bounds, and the `% == 0` terms are compile-time: interior
// copies keep no predicate. `mn_extent` is M or N.
template <typename Op>
__device__ __forceinline__ void tg_copy_k_tile(const tg_copy_cursor<Op>& c, tg_in_t* smem, const tg_in_t* base,
                                               const tg_problem& prob, int origin, int mn_extent, int K, int k0,
                                               int stage, bool checked) {
  using tg_config::BK;
  constexpr int TILE_MN = Op::IS_A ? tg_config::BM : tg_config::BN;
  const auto avail_at = [&](int mn, int k) {
    if (!checked) return 8;
    if (Op::K_MAJOR) {
      if (!(mn_extent % TILE_MN == 0 || origin + mn < mn_extent)) return 0;
      return K % BK == 0 ? 8 : min(max(K - (k0 + k), 0), 8);
    }
    if (!(K % BK == 0 || k0 + k < K)) return 0;
    return mn_extent % TILE_MN == 0 ? 8 : min(max(mn_extent - (origin + mn), 0), 8);
  };
  if constexpr (Op::STEPPED) {
    if (!c.ok) return;
#pragma unroll
    for (int it = 0; it < Op::ITERS; ++it) {
      const int mn = c.mn + it * Op::D_MN, k = c.k + it * Op::D_K;
      const int avail = avail_at(mn, k);
      const tg_in_t* src = avail > 0 ? c.src + static_cast<long long>(k0) * c.k_step + it * c.it_step : base;
      if constexpr (Op::VEC == 8) {
        tg_cp_async<16>(c.dst_addr + (stage * Op::STAGE_ELEMS + it * Op::D_DST) * static_cast<tg_u32>(sizeof(tg_in_t)),
                        src, avail * 2);
      } else {
        tg_move_piece<Op::VEC>(smem + stage * Op::STAGE_ELEMS + c.dst + it * Op::D_DST, src, avail);
      }
    }
  } else {
#pragma unroll
    for (int it = 0; it < Op::ITERS; ++it) {
      int row, col;
      bool ok;
      tg_operand_copy<Op::IS_A>(it, threadIdx.x, row, col, ok);
      if (!ok) continue;
      const int mn = Op::K_MAJOR ? row : col, k = Op::K_MAJOR ? col : row;
      const int avail = avail_at(mn, k);
      const tg_in_t* src = base + (avail > 0 ? tg_operand_gmem<Op::IS_A>(prob, origin + mn, k0 + k) : 0);
      tg_move_piece<Op::VEC>(smem + tg_operand_smem<Op::IS_A>(mn, k, stage), src, avail);
    }
  }
}

// ---- fragments ----
// Lane -> (mn, k) of the row it addresses for ldmatrix x4 of fragment f (16 rows of A or 16 columns of
// B) at k offset kk, fixed by the instruction. A's four matrices are (rows 0-7, k 0-7), (rows 8-15,
// k 0-7), (0-7, k 8-15), (8-15, k 8-15); B's (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15,
// k 8-15), which is what mma.sync's fragments take.
template <typename Op>
__device__ __forceinline__ void tg_ldmatrix_lane(int lane, int first, int f, int kk, int& mn, int& k) {
  const int quad = lane / 8, quad_row = lane % 8;
  const int mn_half = Op::IS_A ? quad % 2 : quad / 2, k_half = Op::IS_A ? quad / 2 : quad % 2;
  if constexpr (Op::K_MAJOR) {
    mn = first + f * 16 + quad_row + mn_half * 8;
    k = kk + k_half * 8;
  } else {
    mn = first + f * 16 + mn_half * 8;
    k = kk + quad_row + k_half * 8;
  }
}

// How a lane addresses its ldmatrix rows, by the structure the scheduler found on the smem domain
// (FRAGMENTS_*), best first:
//  - LINEAR: fragments are FRAGMENT_STEP apart and stages STAGE_SIZE apart, so a lane keeps one
//    address per k16 step and every ldmatrix adds constants. Where moreover every k16 step is step 0
//    XOR a constant (XOR_STEP_BYTES > 0: a swizzle whose XOR bits hold k), one address in all: ptxas
//    otherwise recomputes the per-step registers it cannot keep, swizzle and all, every K tile.
//  - ADD / XOR: k16 step kk is step 0 combined with STEP_DELTA[kk], so a lane keeps one base per
//    fragment.
//  - FULL: none holds; the lane indexes the tile at every access.
// The kernel aligns smem_a and smem_b to 128 bytes, so XOR on an address equals XOR on the offset.
enum { TG_FRAGMENTS_FULL = 0, TG_FRAGMENTS_LINEAR = 1, TG_FRAGMENTS_XOR = 2, TG_FRAGMENTS_ADD = 3 };

template <typename Op>
struct tg_fragment_rows {
  static constexpr int KSTEPS = tg_config::BK / 16;
  static constexpr int COUNT = Op::FRAGMENTS == TG_FRAGMENTS_LINEAR ? (Op::XOR_STEP_BYTES > 0 ? 1 : KSTEPS)
                               : Op::FRAGMENTS == TG_FRAGMENTS_FULL ? 1
                                                                     : Op::FRAGS;
  tg_u32 row[COUNT];
};

template <typename Op>
__device__ __forceinline__ void tg_fragment_setup(tg_fragment_rows<Op>& rows, tg_u32 smem_addr, int lane, int first) {
  using Rows = tg_fragment_rows<Op>;
  int mn, k;
  if constexpr (Op::FRAGMENTS == TG_FRAGMENTS_LINEAR) {
#pragma unroll
    for (int kk = 0; kk < Rows::COUNT; ++kk) {
      tg_ldmatrix_lane<Op>(lane, first, 0, kk * 16, mn, k);
      rows.row[kk] = smem_addr + tg_operand_smem<Op::IS_A>(mn, k, 0) * static_cast<tg_u32>(sizeof(tg_in_t));
    }
  } else if constexpr (Op::FRAGMENTS != TG_FRAGMENTS_FULL) {
#pragma unroll
    for (int f = 0; f < Rows::COUNT; ++f) {
      tg_ldmatrix_lane<Op>(lane, first, f, 0, mn, k);
      const int offset = tg_operand_smem<Op::IS_A>(mn, k, 0);
      rows.row[f] = Op::FRAGMENTS == TG_FRAGMENTS_XOR ? offset
                                                     : smem_addr + offset * static_cast<tg_u32>(sizeof(tg_in_t));
    }
  }
}

// ldmatrix x4 of fragment f at k offset kk (a multiple of 16, a constant of the unrolled step) of
// `stage`; transposed for an MN-major operand.
template <typename Op>
__device__ __forceinline__ void tg_load_fragment(const tg_fragment_rows<Op>& rows, tg_in_t* smem, int lane, int first,
                                                 int f, int kk, int stage, tg_u32 (&r)[4]) {
  constexpr tg_u32 ELEM = sizeof(tg_in_t);
  tg_u32 address;
  if constexpr (Op::FRAGMENTS == TG_FRAGMENTS_LINEAR) {
    // The XOR delta kk * XOR_STEP_BYTES is a constant of the unrolled step. (Read from a constexpr
    // array instead, NVVM turned the XOR into adds and ptxas took 3 more registers.)
    const tg_u32 row = Op::XOR_STEP_BYTES > 0 ? rows.row[0] ^ (kk / 16 * Op::XOR_STEP_BYTES) : rows.row[kk / 16];
    address = row + stage * (Op::STAGE_SIZE * ELEM) + f * (Op::FRAGMENT_STEP * ELEM);
  } else if constexpr (Op::FRAGMENTS == TG_FRAGMENTS_ADD) {
    constexpr auto delta = Op::STEP_DELTA;
    address = rows.row[f] + delta[kk / 16] * ELEM + stage * (Op::STAGE_SIZE * ELEM);
  } else if constexpr (Op::FRAGMENTS == TG_FRAGMENTS_XOR) {
    constexpr auto delta = Op::STEP_DELTA;
    address = tg_smem_addr(smem + stage * Op::STAGE_SIZE + (rows.row[f] ^ delta[kk / 16]));
  } else {
    int mn, k;
    tg_ldmatrix_lane<Op>(lane, first, f, kk, mn, k);
    address = tg_smem_addr(smem + tg_operand_smem<Op::IS_A>(mn, k, stage));
  }
  if constexpr (Op::K_MAJOR) {
    tg_ldmatrix_x4(r, address);
  } else {
    tg_ldmatrix_x4_trans(r, address);
  }
}
