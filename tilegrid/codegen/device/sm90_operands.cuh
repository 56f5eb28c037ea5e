// tilegrid kernel parts: the sm_90 operand tiles, loaded by TMA and read by wgmma. Reads the kernel's
// configuration (tg_config: one struct per operand) and the index functions printed from its IR, so a
// generated source pastes it after both.
#pragma once

// One operand's K tile into a stage. Boxes are Op::BOX_WIDTH elements along the contiguous mode (one
// swizzle row) by Op::BOX_ROWS rows: Op::BLOCKS of them along the contiguous mode, times Op::SHARERS
// parts of the rows. A tile the cluster's CTAs share is loaded in parts, each CTA loading its own and
// multicasting it to all of them. `at(mn, k)` is the element offset of the tile's (mn, k) in the stage
// (the printed tg_smem_a or tg_smem_b); the tile starts at (origin_mn, k0) of the operand. `Sharers`:
// Op::SHARERS, or 1 in a kernel that also loads the tile alone (CLUSTER_AT_LAUNCH), one box of the
// tile's rows per block (the emitter checks both plans). `evict_first`: no other CTA reads the tile.
template <typename Op, int Sharers, typename SmemAt>
__device__ __forceinline__ void tg_load_stage(tg_in_t* smem, const tg_tensor_map* map, SmemAt at, int origin_mn,
                                              int k0, int batch, int cta_rank, tg_u64* full, bool evict_first) {
  static_assert(Sharers == 1 || Sharers == Op::SHARERS, "a tile is loaded alone or by the sharers its boxes are planned for");
  constexpr int BOX_ROWS = Sharers == 1 ? Op::TILE_ROWS : Op::BOX_ROWS;
#pragma unroll
  for (int block = 0; block < Op::BLOCKS; ++block) {
#pragma unroll
    for (int part = 0; part < Sharers; ++part) {
      if (Sharers > 1 && part != cta_rank) continue;
      const int row = tg_box_first_row(part, BOX_ROWS, Op::TILE_ROWS), col = block * Op::BOX_WIDTH;
      // Rows run along MN in a K-major tile, along K in an MN-major one; the map's first coordinate
      // is the contiguous one.
      const int mn = Op::K_MAJOR ? row : col, k = Op::K_MAJOR ? col : row;
      const int inner = Op::K_MAJOR ? k0 + k : origin_mn + mn, outer = Op::K_MAJOR ? origin_mn + mn : k0 + k;
      tg_in_t* dst = smem + at(mn, k);
      if constexpr (Sharers > 1) {
        constexpr unsigned short cluster_mask = (1u << Sharers) - 1;
        if constexpr (tg_config::BATCHED) {
          tg_tma_load_3d_multicast(dst, map, inner, outer, batch, full, cluster_mask, evict_first);
        } else {
          tg_tma_load_2d_multicast(dst, map, inner, outer, full, cluster_mask, evict_first);
        }
      } else if constexpr (tg_config::BATCHED) {
        tg_tma_load_3d(dst, map, inner, outer, batch, full, evict_first);
      } else {
        tg_tma_load_2d(dst, map, inner, outer, full, evict_first);
      }
    }
  }
}

// The wgmma descriptor of the operand's tile from element `offset` of shared memory at `base`, with
// the leading and stride byte offsets and swizzle the scheduler derived from the smem domain.
template <typename Op>
__device__ __forceinline__ tg_u64 tg_operand_desc(tg_u32 base, int offset) {
  return tg_wgmma_desc(base + offset * static_cast<tg_u32>(sizeof(tg_in_t)), Op::LBO, Op::SBO, Op::LAYOUT);
}
