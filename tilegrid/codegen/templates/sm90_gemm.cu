// tilegrid sm_90a GEMM kernel: C[M, N] = A[M, K] * B[K, N] with fp32 accumulation. Built from the
// configuration above it (tg_config, tg_in_t, tg_out_t, TG_KERNEL_NAME), the index functions printed
// from the schedule's IR (tg_*), and the device functions of codegen/device; every variant of the
// configuration is an `if constexpr` here or in those functions.
//
// Warp-specialized and persistent: warpgroup 0 produces (one thread issues TMA tile loads into a
// STAGES-stage ring of full/empty mbarriers; with block scales a second warp copies each stage's
// scales beside them), warpgroups 1..CONSUMERS consume (WM rows each: one wgmma m64nWNkIK per 64
// of them and K step of IK, from shared-memory descriptors; then the epilogue). IK is 16 for 16-bit
// inputs and 32 for 8-bit ones: 32 bytes of each operand's rows.
// The consumers share each tile's rows, or with PINGPONG take whole tiles, the CTA's units in turns,
// one warpgroup's main loop running while the other stores its tile.
// Every cluster walks its share of the work units (prob.split, planned on the host for the launched
// grid: whole units round robin, then with stream-K a range of the last wave's K tiles) and maps each
// unit to a tile with tg_tile_of, printed from the tile grid's IR like every other schedule-dependent
// index. A kernel with WIDTH_AT_LAUNCH holds every tile width from NARROWEST_WN to WN: shared memory
// and the accumulators are laid out for the widest, and the main loop and the epilogue are
// instantiated per width and picked by prob.bn for each unit. A kernel with CLUSTER_AT_LAUNCH runs alone or
// in clusters of CLUSTER_M (prob.cluster_m): the producer's loop is instanced per size, the consumers
// read it. Kernels holding both orientations of C (STRAIGHT_C, TRANSPOSED_C) instance the epilogue per
// orientation (prob.c_transposed). Self-contained: compiles with NVRTC alone, or with
// `nvcc -gencode=arch=compute_90a,code=sm_90a -cubin`.

extern "C" __global__ void __launch_bounds__(tg_config::THREADS, 1)
    TG_KERNEL_NAME(const __grid_constant__ tg_problem prob, const __grid_constant__ tg_tensor_map tmap_a,
                   const __grid_constant__ tg_tensor_map tmap_b, const __grid_constant__ tg_tensor_map tmap_c,
                   tg_out_t* __restrict__ C, float* __restrict__ workspace,
                   const __grid_constant__ tg_tensor_map tmap_aux, const __grid_constant__ tg_tensor_map tmap_c_in) {
  using namespace tg_config;
  using A = operand_a;
  using B = operand_b;
  // The problem's sizes: fields of `prob`, or constants where the configuration compiles them in.
  [[maybe_unused]] const int M = SHAPE_AT_LAUNCH ? prob.M : FIXED_M, N = SHAPE_AT_LAUNCH ? prob.N : FIXED_N;
  const int K_TILES = SHAPE_AT_LAUNCH ? prob.k_tiles : FIXED_K_TILES;
  // K steps (IK each) of the last K tile that reach into K (none cut off when BK divides K).
  const int TAIL_STEPS = SHAPE_AT_LAUNCH ? prob.k_tail_steps : FIXED_K_TAIL_STEPS;
  // Work units per batch (tiles, plus the overhang of a split-merge traversal).
  const int UNITS = SHAPE_AT_LAUNCH ? prob.units : FIXED_UNITS;
  // A consumer warpgroup holds a block of 64 x WN fp32 accumulators per 64 of its rows.
  constexpr int M_BLOCKS = WM / 64;
  // CTAs per cluster (along M): the launch's where the kernel holds several sizes. A work unit is a
  // cluster tile; each CTA of the cluster takes one tile. The consumers read the launch's size from
  // the cluster's special register where they use it, so that no register holds it across their
  // main loop beside the accumulators.
  const int CM = CLUSTER_AT_LAUNCH ? prob.cluster_m : CLUSTER_M;
  const auto cluster_ctas = [] { return CLUSTER_AT_LAUNCH ? tg_cluster_ctas() : CLUSTER_M; };
  // Stream-K: `workspace` holds two flags per consumer warpgroup of every CTA the launch may have (a slot),
  // in a flag area of FLAG_WORDS words, then ACCUMULATION_FLOATS for in-step pieces' sums (both areas every
  // kernel for the device reserves alike and leaves zeroed, so that kernels sharing a workspace find zeros
  // there), then a partial sum of a warpgroup tile per slot. A stream-K launch has a persistent grid of at
  // most MAX_CTAS CTAs, a constant of the configuration.
  constexpr int SLOTS = MAX_CTAS * CONSUMERS;
  static_assert(2 * SLOTS <= FLAG_WORDS, "the flag area holds two flags a slot");
  // A warpgroup's partial sum: a block of 64 rows' accumulators, for 128 threads, per block.
  constexpr int BLOCK_FLOATS = (WN / 2) * 128, SUM_FLOATS = M_BLOCKS * BLOCK_FLOATS;
  // Hardware barriers: 0 is the CTA's, 1 to CONSUMERS each consumer warpgroup's own (its epilogue),
  // then two passing the turn between ping-pong warpgroups, one for the even units' turns and one for
  // the odd.
  constexpr int PINGPONG_TURN_BARRIER = 1 + CONSUMERS;
  static_assert(!PINGPONG || (CONSUMERS == 2 && WM == BM && !STREAM_K && TILES_FROM_PRODUCER),
                "ping-pong kernels: two warpgroups, a whole tile each, whole units that all exist");

  extern __shared__ __align__(1024) unsigned char tg_smem_raw[];
  // 128B-swizzled TMA destinations and wgmma operands need 1024-byte alignment; dynamic shared
  // memory promises 16 bytes.
  unsigned char* smem = tg_smem_raw + ((1024 - (tg_smem_addr(tg_smem_raw) & 1023)) & 1023);
  tg_in_t* smem_a = reinterpret_cast<tg_in_t*>(smem);
  tg_in_t* smem_b = smem_a + STAGES * A_STAGE_ELEMS;
  [[maybe_unused]] tg_out_t* smem_c = reinterpret_cast<tg_out_t*>(smem_b + STAGES * B_STAGE_ELEMS);
  // An auxiliary output stored by TMA and an input c loaded by TMA have slab buffers of their own,
  // laid out as C's and right after them (tg_fill_slab_block addresses them from C's).
  tg_u64* full = reinterpret_cast<tg_u64*>(smem_c + C_SMEM_ELEMS + AUX_SMEM_ELEMS + C_IN_SMEM_ELEMS);
  tg_u64* empty = full + STAGES;
  // With c loaded by TMA, the full barriers of its two buffers for each consumer warpgroup.
  constexpr int C_IN_BARRIERS = C_IN_BY_TMA ? 2 * CONSUMERS : 0;
  [[maybe_unused]] tg_u64* c_in_full = empty + STAGES;
  // Per stage, the tile (m, n) of the unit whose first K tile it holds: the producer computes it in
  // its factor's instance and the consumers read it, so they pick no instance per unit.
  int* unit_tiles = reinterpret_cast<int*>(c_in_full + C_IN_BARRIERS);
  // With block scales, per stage the K block's scales of the CTA's rows and of its B column block,
  // which a producer warp loads beside the stage's tiles (block_scales.cuh).
  [[maybe_unused]] float* stage_scales = reinterpret_cast<float*>(unit_tiles + 2 * STAGES);

  if (threadIdx.x == 0) {
#pragma unroll 1
    for (int s = 0; s < STAGES; ++s) {
      // Filled by the TMA thread's boxes, and with block scales by the copies of the scale warp's
      // 32 lanes too.
      tg_mbarrier_init(&full[s], BLOCK_SCALES ? 1 + 32 : 1);
      // Released by every consumer warpgroup reading the stage (the one whose tile it holds where each
      // takes tiles of its own) of every CTA whose B tile the stage shares; with block scales by each
      // of their warps, each after its own reads of the stage's scales.
      tg_mbarrier_init(&empty[s], (PINGPONG ? 1 : CONSUMERS) * CM * (BLOCK_SCALES ? 4 : 1));
    }
#pragma unroll 1
    for (int b = 0; b < C_IN_BARRIERS; ++b) tg_mbarrier_init(&c_in_full[b], 1);
    tg_mbarrier_init_fence();
  }
  if (CM > 1) {
    tg_cluster_sync_after_init();
  } else {
    __syncthreads();
  }
  // Launched behind the runtime's padded copies, the CTA has set up beside their last CTAs; the
  // copies (and anything before them) are complete from here on.
  tg_wait_for_prior_grid();
  const int cta_rank = CM > 1 ? tg_cluster_rank() : 0;
  // The unit's tile for this CTA in the traversal of factor `factor` with clusters of `cluster` (both
  // tg_const), false where the unit lies past the tile grid. The cluster's first tile decides whether
  // the unit exists, for every rank alike; a rank's own tile may lie past M (computed on zero-filled
  // loads, never stored).
  const auto tile_in = [&](auto factor, auto cluster, int unit, int& tile_m, int& tile_n) TG_INLINE {
    constexpr int F = decltype(factor)::value, C = decltype(cluster)::value;
    bool valid, own_tile_inside;
    tg_tile_of<F, C>(prob, unit % UNITS, 0, tile_m, tile_n, valid);
    if (C > 1) tg_tile_of<F, C>(prob, unit % UNITS, cta_rank, tile_m, tile_n, own_tile_inside);
    return valid;
  };

  // Shuffled from lane 0 so that ptxas knows it is warp-uniform: the consumers' descriptors and stage
  // arithmetic then stay in uniform registers (55 instructions a K tile instead of 100).
  const int warpgroup = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
  if (warpgroup == 0) {
    tg_setmaxnreg_dec<PRODUCER_REGS>();
    // Each role computes the split after its setmaxnreg: values live across it spill (ptxas).
    const tg_work_split work = tg_split_for_cluster(prob.split, blockIdx.x / CM);
    // The tile's width (a kernel holding several widths holds tiles alone).
    const int TILE_N = WIDTH_AT_LAUNCH ? prob.bn : BN;
    // The producer's loop is instanced per traversal factor and cluster size the kernel holds, picked
    // once: a pick per unit left the tile index's instances competing for its few registers (ptxas
    // spilled). `fill(cluster, stage, kt, first, tile_m, tile_n, batch)` fills a stage once it is free.
    // Waits until the ring's `iter`-th fill may start: its stage released since the fill before it.
    // A fresh barrier counts as having completed the phase before its first: the first pass through
    // the ring waits on parity 1 and does not block.
    const auto wait_free = [&](unsigned iter) TG_INLINE {
      tg_mbarrier_wait(&empty[iter % STAGES], ((iter / STAGES) & 1) ^ 1);
    };
    const auto produce = [&](auto factor, auto cluster, auto fill) TG_INLINE {
      unsigned iter = 0;
#pragma unroll 1
      for (int item = 0, unit, k_begin, k_end; tg_work_item(work, K_TILES, item, unit, k_begin, k_end); ++item) {
        int tile_m, tile_n;
        if (!tile_in(factor, cluster, unit, tile_m, tile_n)) continue;
        const int batch = unit / UNITS;
#pragma unroll 1
        for (int kt = k_begin; kt < k_end; ++kt, ++iter) {
          wait_free(iter);
          fill(cluster, iter % STAGES, kt, kt == k_begin, tile_m, tile_n, batch);
        }
      }
      // In a cluster this CTA's boxes land in its peers' shared memory too, and their consumers
      // release its stages from afar: it may exit once every consumer of the cluster has released
      // every stage it filled (each thread filling stages waits). Its own shared memory needs no
      // wait: its consumers wait for the peers' boxes in it, and the peers wait for the releases
      // their stages get from its consumers.
      if constexpr (decltype(cluster)::value > 1) {
#pragma unroll 1
        for (unsigned i = iter; i < iter + STAGES; ++i) wait_free(i);
      }
    };
    // One thread loads the operands' tiles by TMA.
    const auto load_tiles = [&](auto cluster, int stage, int kt, bool first, int tile_m, int tile_n, int batch) TG_INLINE {
      constexpr int C = decltype(cluster)::value;
      // The bytes a stage's boxes land (a narrower B tile lands fewer rows).
      const int stage_tx_bytes =
          (C == 1 ? STAGE_TX_BYTES_ALONE : STAGE_TX_BYTES) - (WIDTH_AT_LAUNCH ? (BN - TILE_N) * B_ROW_TX_BYTES : 0);
      // Published by the arrive below (release); the consumers read it after waiting on it.
      if (first) unit_tiles[2 * stage] = tile_m, unit_tiles[2 * stage + 1] = tile_n;
      tg_mbarrier_arrive_expect_tx(&full[stage], stage_tx_bytes);
      const int k0 = kt * BK;
      // An operand that one tile covers along the other side is read once, and up to a size the
      // host's readOncePolicy reads it evict-first in L2 (scheduler/l2_policy.h).
      const bool once_a = prob.evict_first_a != 0, once_b = prob.evict_first_b != 0;
      tg_load_stage<A, A::SHARERS>(smem_a, &tmap_a, [&](int m, int k) { return tg_smem_a(m, k, stage); }, tile_m * BM,
                                   k0, batch, cta_rank, &full[stage], once_a);
      tg_load_stage<B, C>(smem_b, &tmap_b, [&](int n, int k) { return tg_smem_b(n, k, stage); }, tile_n * TILE_N, k0,
                          batch, cta_rank, &full[stage], once_b);
    };
    // With block scales, the second warp copies each stage's scales asynchronously: it runs the
    // ring's depth ahead of the consumers, as the tiles do, so the scales' latency never reaches
    // their main loop.
    [[maybe_unused]] const auto load_scales = [&](auto, int stage, int kt, bool, int tile_m, int tile_n, int batch) TG_INLINE {
      tg_stage_block_scales<BM>(stage_scales + stage * SCALE_STAGE_FLOATS, prob.epilogue, M, K_TILES, tile_m * BM,
                                tile_n * BN / BLOCK_SCALE_COLUMNS, batch, kt, threadIdx.x % 32, &full[stage]);
    };
    const auto produce_with = [&](auto fill) TG_INLINE {
      tg_with_launch_choice<CLUSTER_AT_LAUNCH, CLUSTER_M>(prob.cluster_m, [&](auto cluster) TG_INLINE {
        tg_with_launch_choice<GRID_FACTOR_AT_LAUNCH, GRID_FACTOR>(
            prob.grid_factor, [&](auto factor) TG_INLINE { produce(factor, cluster, fill); });
      });
    };
    if (threadIdx.x == 0) {
      produce_with(load_tiles);
    } else if constexpr (BLOCK_SCALES) {
      if (threadIdx.x / 32 == 1) produce_with(load_scales);
    }
  } else {
    tg_setmaxnreg_inc<CONSUMER_REGS>();
    const tg_work_split work = tg_split_for_cluster(prob.split, blockIdx.x / CM);
    const int consumer = warpgroup - 1;
    const int t = threadIdx.x % 128;
    const tg_u32 smem_a_addr = tg_smem_addr(smem_a), smem_b_addr = tg_smem_addr(smem_b);
    // Where the operands' start addresses step by constants over stages and K steps (derived on
    // the smem domains), each step adds them to the warpgroup's first descriptors; otherwise every
    // step indexes the tile in full.
    tg_u64 desc_a0[M_BLOCKS], desc_b0 = 0;
    if constexpr (DESCRIPTOR_STEPS) {
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb) {
        desc_a0[mb] = tg_operand_desc<A>(smem_a_addr, tg_smem_a(tg_consumer_tile_row(consumer) + mb * 64, 0, 0));
      }
      desc_b0 = tg_operand_desc<B>(smem_b_addr, tg_smem_b(0, 0, 0));
    }
    // The epilogue's slab buffers and maps, built where used (held across the main loop they would
    // take registers beside the accumulators).
    const auto slab_buffers = [&] { return tg_slab_buffers{smem_c, &tmap_c, &tmap_aux, &tmap_c_in, c_in_full}; };
    // Whether a unit's epilogue stores C by TMA: the kernel's way, or the launch's where it carries both.
    const auto c_stored_by_tma = [&] { return TMA_STORE_C && DIRECT_STORE_C ? prob.c_by_tma != 0 : TMA_STORE_C; };
    float acc[M_BLOCKS][WN / 2];
    // With block scales, a K tile's sum (block_scales.cuh); other kernels never touch it.
    [[maybe_unused]] float part[M_BLOCKS][WN / 2];
    // Stages the warpgroup has passed through; unsigned, so that a stage and its phase are a plain
    // remainder and quotient.
    unsigned iter = 0;
    // With block scales: whether the next stage had landed when the warpgroup last asked, before
    // scaling a K tile's sum, so that the question's latency hides behind the scaling.
    [[maybe_unused]] bool next_stage_landed = false;
    // The ring's `i`-th stage: waited on until its tiles have landed, or asked once whether they have.
    const auto wait_landed = [&](unsigned i) TG_INLINE { tg_mbarrier_wait(&full[i % STAGES], (i / STAGES) & 1); };
    [[maybe_unused]] const auto has_landed = [&](unsigned i) TG_INLINE {
      return tg_mbarrier_test(&full[i % STAGES], (i / STAGES) & 1);
    };
    [[maybe_unused]] int epilogue_slabs = 0;  // slabs this warpgroup has stored: picks the buffer
#pragma unroll 1
    for (int item = 0, unit, k_begin, k_end; tg_work_item(work, K_TILES, item, unit, k_begin, k_end); ++item) {
      // Ping-pong: the warpgroups take the CTA's units in turns. The producer fills the ring in unit
      // order, so the other's units pass by here as their stages: one's main loop then runs while the
      // other stores its tile. (Every unit exists and is whole in such kernels.)
      if (PINGPONG && item % CONSUMERS != consumer) {
        iter += k_end - k_begin;
        next_stage_landed = false;
        continue;
      }
      // Ping-pong: a unit's main loop starts once the other warpgroup has waited on every stage of
      // the unit before (it arrives below). Besides ordering the multiplies, this keeps a warpgroup
      // from waiting on a stage whose earlier fill, for the other's unit, has not landed yet: the
      // stage's barrier would then show the parity it waits for one phase early.
      if (PINGPONG && item > 0) tg_named_barrier_sync(PINGPONG_TURN_BARRIER + item % 2, 2 * 128);
      // The unit's tile: where every unit exists, the one the producer left with the unit's first K
      // tile (picking the factor's instance here, beside the live accumulators, cost the consumers
      // registers and time); a split-merge traversal's overhang units are skipped by both roles alike.
      int tile_m, tile_n;
      if constexpr (TILES_FROM_PRODUCER) {
        const unsigned first = iter % STAGES;
        wait_landed(iter);
        tile_m = unit_tiles[2 * first];
        tile_n = unit_tiles[2 * first + 1];
        // The producer writes a later unit's tile here once the warpgroup's first thread releases the
        // stage, after the unit's first wgmma group has completed: a group every warp of the warpgroup
        // issued after this read. (A warpgroup barrier here, ordering the reads before the release for
        // the memory model too, cost the heaviest kernels 12 bytes more of spills.)
      } else {
        // Split-merge kernels hold one cluster size (MatmulParams::clusterAtLaunch).
        bool valid;
        tg_with_launch_choice<GRID_FACTOR_AT_LAUNCH, GRID_FACTOR>(prob.grid_factor, [&](auto factor) TG_INLINE {
          valid = tile_in(factor, tg_const<CLUSTER_M>{}, unit, tile_m, tile_n);
        });
        if (!valid) continue;
      }
      const int batch = unit / UNITS;
      if constexpr (HAS_EPILOGUE) {
        // The warpgroup's rows of the tile, in the caller's terms: C^T's columns where the tile is
        // stored transposed.
        const int width = WIDTH_AT_LAUNCH ? prob.bn : WN, m0 = tile_m * BM + tg_consumer_tile_row(consumer), n0 = tile_n * width;
        if (TRANSPOSED_C && (!STRAIGHT_C || prob.c_transposed)) {
          tg_epilogue_prefetch<128>(prob.epilogue, n0, width, m0, WM, N, M, batch, t);
        } else {
          tg_epilogue_prefetch<128>(prob.epilogue, m0, WM, n0, width, M, N, batch, t);
        }
      }
      // The input c's first slabs, where loaded ahead (tg_c_loaded_ahead) and this warpgroup stores
      // the tile (the CTA holding its last K tile) through the epilogue's instance that reads c by TMA
      // (the test below, AUX_BY_TMA aside: a kernel has one slab or the other).
      static_assert(!C_IN_BY_TMA || (!WIDTH_AT_LAUNCH && !AUX_BY_TMA && C_IN_BOX_BYTES > 0),
                    "c by TMA: kernels of one tile width and no aux slab, loading whole boxes of c");
      if constexpr (C_IN_BY_TMA && tg_c_loaded_ahead) {
        if (t == 0 && (!STREAM_K || k_end == K_TILES) && c_stored_by_tma() && prob.epilogue.c_by_tma) {
          tg_with_c_orientation(prob, [&](auto orientation) TG_INLINE {
            using Ep = decltype(orientation);
            if constexpr (tg_c_in_slab<Ep>) {
              tg_load_c_ahead<Ep, WN>(slab_buffers(), tile_m, tile_n, batch, consumer, epilogue_slabs);
            }
          });
        }
      }
      // Where the launch picks the width, each unit's main loop and epilogue branch once to their
      // instance for it: TW columns, the leading TW / 2 accumulators of each block.
      const auto for_width = [&](auto&& f) TG_INLINE {
        if constexpr (WIDTH_AT_LAUNCH) {
          tg_with_width<NARROWEST_WN, WN, WIDTH_STEP>(prob.bn, f);
        } else {
          f(tg_const<WN>{});
        }
      };
      if constexpr (BLOCK_SCALES) {
        // The totals start from zero once a unit, so that each block's sum is added alike.
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb) {
#pragma unroll
          for (int i = 0; i < WN / 2; ++i) acc[mb][i] = 0.f;
        }
      }
      // One K tile: `steps` of its K steps multiply (fewer in a last K tile cut by K, whose other
      // steps hold only TMA's zero fill). Called with constants, so each call is straight-line code:
      // a branch between wgmmas makes ptxas wait for them.
      auto multiply_k_tile = [&](int kt, int steps, auto width) TG_INLINE {
        constexpr int TW = decltype(width)::value;
        const unsigned stage = iter % STAGES;
        if (!BLOCK_SCALES || !next_stage_landed) wait_landed(iter);
        // The block's scales, from the stage, as products of A's and B's (every warp releases the
        // stage after its reads: a release orders them before the producer's refill).
        [[maybe_unused]] tg_block_scales<M_BLOCKS> scales;
        if constexpr (BLOCK_SCALES) {
          tg_read_block_scales(scales, stage_scales + stage * SCALE_STAGE_FLOATS, BM, tg_consumer_tile_row(consumer), t);
        }
        tg_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < steps; ++kk) {
          tg_u64 desc_b;
          if constexpr (DESCRIPTOR_STEPS) {
            desc_b = tg_wgmma_desc_advance(desc_b0, stage * B::DESC_STAGE_STEP + kk * B::DESC_KK_STEP);
          } else {
            desc_b = tg_operand_desc<B>(smem_b_addr, tg_smem_b(0, kk * IK, stage));
          }
#pragma unroll
          for (int mb = 0; mb < M_BLOCKS; ++mb) {
            tg_u64 desc_a;
            if constexpr (DESCRIPTOR_STEPS) {
              desc_a = tg_wgmma_desc_advance(desc_a0[mb], stage * A::DESC_STAGE_STEP + kk * A::DESC_KK_STEP);
            } else {
              desc_a = tg_operand_desc<A>(smem_a_addr, tg_smem_a(tg_consumer_tile_row(consumer) + mb * 64, kk * IK, stage));
            }
            if constexpr (BLOCK_SCALES) {
              tg_wgmma<TW, WGMMA_TYPE_A, WGMMA_TYPE_B, 0, 0>(tg_leading<TW / 2>(part[mb]), desc_a, desc_b, kk > 0);
            } else {
              tg_wgmma<TW, WGMMA_TYPE_A, WGMMA_TYPE_B, A::K_MAJOR ? 0 : 1, B::K_MAJOR ? 0 : 1>(
                  tg_leading<TW / 2>(acc[mb]), desc_a, desc_b, kt > k_begin || kk > 0);
            }
          }
        }
        tg_wgmma_commit();
        if constexpr (BLOCK_SCALES) {
          // Once the tile's wgmmas are done its stage is free, and the block's sum is scaled into the
          // totals while the other consumer warpgroup's wgmmas keep the tensor cores busy.
          tg_wgmma_wait<0>();
          if (t % 32 == 0) tg_release_stage<CLUSTER_M>(&empty[stage], cluster_ctas());
          // A landed stage stays so until this warpgroup releases it, whichever unit it serves.
          next_stage_landed = has_landed(iter + 1);
#pragma unroll
          for (int mb = 0; mb < M_BLOCKS; ++mb) {
            tg_promote_block(tg_leading<TW / 2>(acc[mb]), tg_leading<TW / 2>(part[mb]), scales.row[mb][0],
                             scales.row[mb][1]);
          }
        } else {
          // Keep this k tile's wgmmas in flight; once the previous tile's are done, its stage is free.
          tg_wgmma_wait<1>();
          if (kt > k_begin && t == 0) tg_release_stage<CLUSTER_M>(&empty[(iter - 1) % STAGES], cluster_ctas());
        }
      };
      const bool K_CUT = TAIL_STEPS != 0;
      const int full_end = K_CUT && k_end == K_TILES ? K_TILES - 1 : k_end;
      for_width([&](auto width) TG_INLINE {
#pragma unroll 1
        for (int kt = k_begin; kt < full_end; ++kt, ++iter) multiply_k_tile(kt, BK / IK, width);
        if (full_end < k_end) {
          // Two straight-line copies, not one a step count: the cut tile runs half a tile's steps or
          // a whole tile's (TMA's zero fill past K adds nothing), so at most BK / (2 IK) - 1 steps
          // multiply zeros. A copy for every count cost the consumers registers and spilled.
          static_assert(BK % (2 * IK) == 0, "the cut K tile runs half or all of a K tile's K steps");
          if (TAIL_STEPS <= BK / (2 * IK)) {
            multiply_k_tile(full_end, BK / (2 * IK), width);
          } else {
            multiply_k_tile(full_end, BK / IK, width);
          }
          ++iter;
        }
      });
      if constexpr (PINGPONG) {
        // The next unit's turn (its warpgroup syncs on it), where the CTA has one.
        int next_unit, next_begin, next_end;
        if (tg_work_item(work, K_TILES, item + 1, next_unit, next_begin, next_end)) {
          tg_named_barrier_arrive(PINGPONG_TURN_BARRIER + (item + 1) % 2, 2 * 128);
        }
      }
      tg_wgmma_wait<0>();
      if (!BLOCK_SCALES && t == 0) tg_release_stage<CLUSTER_M>(&empty[(iter - 1) % STAGES], cluster_ctas());
      // A cut unit's accumulated sum, after the flags: a warpgroup tile for each CTA rank and
      // consumer (kernels with ACCUMULATE only).
      [[maybe_unused]] const auto total_of = [&] {
        const int sum_index = ((unit - work.dp_units) * cluster_ctas() + cta_rank) * CONSUMERS + consumer;
        return workspace + FLAG_WORDS + static_cast<long long>(sum_index) * SUM_FLOATS;
      };
      // How many of the rows of the warpgroup's block mb lie inside the problem: an accumulated sum
      // holds only those.
      [[maybe_unused]] const auto rows_inside = [&](int mb) {
        return M - (tile_m * BM + tg_consumer_tile_row(consumer) + 64 * mb);
      };
      if constexpr (STREAM_K) {
        unsigned* flags = reinterpret_cast<unsigned*>(workspace);
        float* partials = workspace + FLAG_WORDS + ACCUMULATION_FLOATS;
        const int own = blockIdx.x * CONSUMERS + consumer;
        const auto sum_of = [&](int slot) { return partials + static_cast<long long>(slot) * SUM_FLOATS; };
        // A unit cut by K: the CTA holding its last K tiles finishes it (it reaches them last, at the
        // end of its range); the others hand over their partial sums (the plan's reduction says how). Cut
        // in step, the finisher's slot holds the pieces' counts: its first flag counts sums stored or
        // accumulated, its second slices added.
        // Kernels without ACCUMULATE add in slices exactly where the plan cuts into SLICE_MIN_PIECES or
        // more pieces (planWorkSplit's rule), which they test on the split they walk: reading the plan's
        // reduction instead cost the largest tiles registers beside their accumulators (they spilled).
        const int reduction = ACCUMULATE ? prob.split.reduction
                                         : (work.pieces >= SLICE_MIN_PIECES ? TG_REDUCE_IN_SLICES : TG_REDUCE_IN_TURN);
        const bool slices = reduction == TG_REDUCE_IN_SLICES;
        const bool in_step = slices || reduction == TG_REDUCE_ACCUMULATED;
        const int piece = in_step ? work.cluster % work.pieces : 0;
        const int stride = cluster_ctas() * CONSUMERS;  // slots from one piece to the next
        const int last = in_step ? own + (work.pieces - 1 - piece) * stride : own;
        if (k_end < K_TILES) {
          if constexpr (ACCUMULATE) {
            if (reduction == TG_REDUCE_ACCUMULATED) {
#pragma unroll
              for (int mb = 0; mb < M_BLOCKS; ++mb) {
                tg_partial_accumulate<128>(acc[mb], total_of() + mb * BLOCK_FLOATS, t, rows_inside(mb));
              }
              tg_named_barrier_sync(1 + consumer, 128);
              if (t == 0) tg_counter_arrive(&flags[last]);
              continue;
            }
          }
#pragma unroll
          for (int mb = 0; mb < M_BLOCKS; ++mb) {
            tg_partial_store<128>(acc[mb], sum_of(own) + mb * BLOCK_FLOATS, t);
          }
          if (!in_step) {
            tg_partial_publish<128>(&flags[own], t, 1 + consumer);
            continue;
          }
          tg_named_barrier_sync(1 + consumer, 128);
          if (t == 0) {
            tg_counter_arrive(&flags[last]);
            tg_counter_wait(&flags[last], work.pieces - 1);
          }
          tg_named_barrier_sync(1 + consumer, 128);
          tg_reduce_slice<128, SUM_FLOATS>(sum_of(own - piece * stride), static_cast<long long>(stride) * SUM_FLOATS,
                                           work.pieces - 1, piece, sum_of(last), t);
          tg_named_barrier_sync(1 + consumer, 128);
          if (t == 0) tg_counter_arrive(&flags[SLOTS + last]);
          continue;
        }
        if (in_step) {
          if (t == 0) {
            tg_counter_wait(&flags[slices ? SLOTS + last : last], work.pieces - 1);
            // Every other piece has passed its counts: clear them for the next launch.
            tg_counter_clear(&flags[last]);
            if (slices) tg_counter_clear(&flags[SLOTS + last]);
          }
          tg_named_barrier_sync(1 + consumer, 128);
#pragma unroll
          for (int mb = 0; mb < M_BLOCKS; ++mb) {
            if (!ACCUMULATE || slices) {
              tg_partial_add<128>(acc[mb], sum_of(last) + mb * BLOCK_FLOATS, t);
            } else {
              tg_partial_take<128>(acc[mb], total_of() + mb * BLOCK_FLOATS, t, rows_inside(mb));
            }
          }
        } else if (k_begin > 0) {
#pragma unroll 1
          for (int c = tg_first_sharer(work, K_TILES, unit); c < work.cluster; ++c) {
            const int slot = (c * cluster_ctas() + cta_rank) * CONSUMERS + consumer;
            tg_partial_acquire<128>(&flags[slot], t, 1 + consumer);
#pragma unroll
            for (int mb = 0; mb < M_BLOCKS; ++mb) {
              tg_partial_add<128>(acc[mb], sum_of(slot) + mb * BLOCK_FLOATS, t);
            }
          }
        }
      }
      // C's orientation, then the way of storing it: the kernel's, or the launch's where it carries
      // both. Both are picked before the width: picked per width, kernels holding every width spilled.
      tg_with_c_orientation(prob, [&](auto orientation) TG_INLINE {
        using Ep = decltype(orientation);
        const tg_slab_buffers slab = slab_buffers();
        if (c_stored_by_tma()) {
          // The auxiliary output by TMA beside C, where the kernel has its slab and the launch's aux
          // allows it: an instance of its own, as for C's stores.
          constexpr bool AUX_TMA = AUX_BY_TMA && TMA_STORE_C && !Ep::TRANSPOSED;
          constexpr bool C_TMA = tg_c_in_slab<Ep>;
          if (AUX_TMA && prob.epilogue.aux_by_tma) {
            for_width([&](auto width) TG_INLINE {
              tg_epilogue<Ep, TMA_STORE_C, decltype(width)::value, AUX_TMA, false>(
                  acc, slab, C, prob, M, N, tile_m, tile_n, batch, consumer, t, epilogue_slabs);
            });
          } else if (C_TMA && prob.epilogue.c_by_tma) {
            for_width([&](auto width) TG_INLINE {
              tg_epilogue<Ep, TMA_STORE_C, decltype(width)::value, false, C_TMA>(
                  acc, slab, C, prob, M, N, tile_m, tile_n, batch, consumer, t, epilogue_slabs);
            });
          } else {
            for_width([&](auto width) TG_INLINE {
              tg_epilogue<Ep, TMA_STORE_C, decltype(width)::value, false, false>(
                  acc, slab, C, prob, M, N, tile_m, tile_n, batch, consumer, t, epilogue_slabs);
            });
          }
        } else {
          for_width([&](auto width) TG_INLINE {
            tg_epilogue<Ep, false, decltype(width)::value, false, false>(acc, slab, C, prob, M, N, tile_m, tile_n,
                                                                         batch, consumer, t, epilogue_slabs);
          });
        }
      });
    }
    // Shared memory must outlive the last stores' reads; their writes complete with the grid, so the
    // CTA need not wait for them.
    if (TMA_STORE_C && prob.c_by_tma && t == 0) tg_tma_store_wait_read<0>();
  }
}
