// tilegrid sm_80 GEMM kernel: C[M, N] = A[M, K] * B[K, N] with fp32 accumulation. Built from the
// configuration above it (tg_config, tg_in_t, tg_out_t, TG_KERNEL_NAME), the index functions printed
// from the schedule's IR (tg_*), and the device functions of codegen/device; every variant of the
// configuration is an `if constexpr` here or in those functions.
//
// mma.sync m16n8k16, ldmatrix, a STAGES-stage cp.async pipeline. Self-contained: compiles with NVRTC
// alone, or with `nvcc -arch=sm_80 -cubin`.

extern "C" __global__ void __launch_bounds__(tg_config::THREADS, 1)
    TG_KERNEL_NAME([[maybe_unused]] const tg_problem prob, const tg_in_t* __restrict__ A_all,
                   const tg_in_t* __restrict__ B_all, tg_out_t* __restrict__ C_all) {
  using namespace tg_config;
  using A = operand_a;
  using B = operand_b;
  // The problem's sizes: fields of `prob`, or constants where the configuration compiles them in.
  const int M = SHAPE_AT_LAUNCH ? prob.M : FIXED_M, N = SHAPE_AT_LAUNCH ? prob.N : FIXED_N;
  const int K = SHAPE_AT_LAUNCH ? prob.K : FIXED_K;
  constexpr int MI = TM / 16, NI = TN / 8;
  const int K_TILES = SHAPE_AT_LAUNCH ? prob.k_tiles : FIXED_K_TILES;
  // Work units per batch entry (tiles, plus split-merge's overhang) and in all (the schedule refuses
  // problems of more than 2^31 - 1).
  const int UNITS = SHAPE_AT_LAUNCH ? prob.units : FIXED_UNITS;
  const int ALL_UNITS = UNITS * (SHAPE_AT_LAUNCH ? prob.batch : FIXED_BATCH);
  const long long BATCH_STRIDE_A = SHAPE_AT_LAUNCH ? prob.batch_stride_a : FIXED_BATCH_STRIDE_A;
  const long long BATCH_STRIDE_B = SHAPE_AT_LAUNCH ? prob.batch_stride_b : FIXED_BATCH_STRIDE_B;
  const long long BATCH_STRIDE_C = SHAPE_AT_LAUNCH ? prob.batch_stride_c : FIXED_BATCH_STRIDE_C;

  // Launched to overlap the kernel before it (sm_90 devices), the CTA waits for it before any access
  // to global memory.
  tg_wait_for_prior_grid();
  extern __shared__ __align__(128) unsigned char tg_smem_raw[];
  // Bank behaviour of the swizzle assumes 128-byte aligned tiles; dynamic smem promises 16 bytes.
  tg_in_t* smem_a = reinterpret_cast<tg_in_t*>(tg_smem_raw + ((128 - (tg_smem_addr(tg_smem_raw) & 127)) & 127));
  tg_in_t* smem_b = smem_a + STAGES * A::STAGE_ELEMS;
  const tg_u32 smem_a_addr = tg_smem_addr(smem_a), smem_b_addr = tg_smem_addr(smem_b);

  // A CTA walks units blockIdx.x, + gridDim.x, ...: one unit when the grid covers them all, several
  // when the grid is persistent. Units past the grid (split-merge's overhang) are skipped.
  auto tile_of = [&](int unit, int& m0, int& n0, int& batch) {
    int tile_m, tile_n;
    bool tile_valid;
    tg_with_launch_choice<GRID_FACTOR_AT_LAUNCH, GRID_FACTOR>(prob.grid_factor, [&](auto factor) TG_INLINE {
      tg_tile_of<decltype(factor)::value, 1>(prob, unit % UNITS, 0, tile_m, tile_n, tile_valid);
    });
    m0 = tile_m * BM;
    n0 = tile_n * BN;
    batch = unit / UNITS;
    return tile_valid;
  };
  auto next_unit = [&](int unit) {
    int m0, n0, batch;
    do {
      unit += gridDim.x;
    } while (unit < ALL_UNITS && !tile_of(unit, m0, n0, batch));
    return unit;
  };
  int unit = blockIdx.x;
  {
    int m0, n0, batch;
    if (unit < ALL_UNITS && !tile_of(unit, m0, n0, batch)) unit = next_unit(unit);
  }
  if (unit >= ALL_UNITS) return;

  // The tile the copies read (the load cursor's, below).
  int load_m0 = 0, load_n0 = 0, load_batch = 0;
  bool load_inside = true;  // the bound tile lies wholly inside M and N
  const tg_in_t* load_A = A_all;
  const tg_in_t* load_B = B_all;
  tg_copy_cursor<A> copy_a;
  tg_copy_cursor<B> copy_b;
  tg_copy_setup(copy_a, prob, smem_a);
  tg_copy_setup(copy_b, prob, smem_b);
  auto bind_loads = [&](int u) {
    tile_of(u, load_m0, load_n0, load_batch);
    load_A = A_all + static_cast<long long>(load_batch) * BATCH_STRIDE_A;
    load_B = B_all + static_cast<long long>(load_batch) * BATCH_STRIDE_B;
    load_inside = load_m0 + BM <= M && load_n0 + BN <= N;
    tg_copy_bind(copy_a, load_A, load_m0);
    tg_copy_bind(copy_b, load_B, load_n0);
  };

  // One K tile of A and B into `stage`: 16-byte pieces (read in narrower parts from misaligned
  // operands), zero-filled past M, N and K. Only K tiles that reach past an edge are `checked`: the
  // bounds arithmetic of every piece would otherwise run in the main loop of every tile. `checked` is
  // a constant at both inlined calls, so each gets its own copy code; a generic lambda taking a
  // compile-time flag would be clearer, but NVRTC compiles its call operator as host code.
  const bool EDGES = M % BM != 0 || N % BN != 0 || K % BK != 0;
  auto load_tile = [&](int kt, int stage, bool checked) {
    const int k0 = kt * BK;
    tg_copy_k_tile(copy_a, smem_a, load_A, prob, load_m0, M, K, k0, stage, checked);
    tg_copy_k_tile(copy_b, smem_b, load_B, prob, load_n0, N, K, k0, stage, checked);
  };

  const int lane = threadIdx.x % 32;
  int warp_m, warp_n;
  // Shuffled from lane 0 so that ptxas knows the warp index is warp-uniform.
  tg_warp_of(__shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0), warp_m, warp_n);
  const int wm0 = warp_m * TM, wn0 = warp_n * TN;
  // ldmatrix row addresses, by the structure the scheduler derived from tg_smem_a/b.
  tg_fragment_rows<A> rows_a;
  tg_fragment_rows<B> rows_b;
  tg_fragment_setup(rows_a, smem_a_addr, lane, wm0);
  tg_fragment_setup(rows_b, smem_b_addr, lane, wn0);

  float acc[MI][NI][4];
  // One k16 step's fragments of A and B from `stage`, k offset `kk`, by ldmatrix.
  auto load_fragments = [&](int stage, int kk, tg_u32 (&a)[MI][4], tg_u32 (&b)[NI][2]) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) tg_load_fragment(rows_a, smem_a, lane, wm0, mi, kk, stage, a[mi]);
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) {
      tg_u32 r[4];
      tg_load_fragment(rows_b, smem_b, lane, wn0, nj, kk, stage, r);
      b[2 * nj][0] = r[0];
      b[2 * nj][1] = r[1];
      b[2 * nj + 1][0] = r[2];
      b[2 * nj + 1][1] = r[3];
    }
  };
  // The schedule's mma order: row block by row block, or column by column, down and back up.
  constexpr bool IN_BF16 = tg_dtype<tg_in_t>::bf16;
  auto multiply = [&](const tg_u32 (&a)[MI][4], const tg_u32 (&b)[NI][2]) {
    if constexpr (MMA_BY_COLUMNS) {
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int i = 0; i < MI; ++i) {
          const int mi = ni % 2 == 0 ? i : MI - 1 - i;
          tg_mma_m16n8k16<IN_BF16>(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
        }
    } else {
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) tg_mma_m16n8k16<IN_BF16>(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
  };

  // The copies run STAGES - 1 K tiles ahead of the math, across tile boundaries: a load cursor
  // walks the same units as the math, so a persistent CTA fetches the next tile's first K tiles
  // during the last ones of the current tile instead of in a burst after its epilogue.
  // Unsigned counts: `% STAGES` of a signed one costs sign fix-ups in every K tile.
  int load_unit = unit, load_kt = 0;
  unsigned load_iter = 0;
  auto load_next = [&] {
    if (load_unit < ALL_UNITS) {
      if (!EDGES || (load_inside && (K % BK == 0 || load_kt + 1 < K_TILES)))
        load_tile(load_kt, load_iter % STAGES, false);
      else
        load_tile(load_kt, load_iter % STAGES, true);
      ++load_iter;
      if (++load_kt == K_TILES) {
        load_kt = 0;
        load_unit = PERSISTENT ? next_unit(load_unit) : ALL_UNITS;
        if (load_unit < ALL_UNITS) bind_loads(load_unit);
      }
    }
    tg_cp_async_commit();
  };

  // Fragments are double-buffered in registers: the next k16 step's are loaded while this step's
  // mma.sync run, across the K-tile boundary too, so the tensor pipe does not wait on ldmatrix.
  constexpr int KSTEPS = BK / 16;
  tg_u32 frag_a[2][MI][4];
  tg_u32 frag_b[2][NI][2];

  bind_loads(unit);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) load_next();
  unsigned iter = 0;  // K tiles this CTA has multiplied, over all its units: picks the stage
#pragma unroll 1
  while (true) {
    int m0, n0, batch;
    tile_of(unit, m0, n0, batch);
    tg_out_t* C = C_all + static_cast<long long>(batch) * BATCH_STRIDE_C;
    // The epilogue's operands for this tile, on their way to near caches while the main loop runs.
    if constexpr (HAS_EPILOGUE) tg_epilogue_prefetch<THREADS>(prob.epilogue, m0, BM, n0, BN, M, N, batch, threadIdx.x);
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[mi][ni][c] = 0.0f;
    tg_cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_fragments(iter % STAGES, 0, frag_a[0], frag_b[0]);

    // Not unrolled: a short K would otherwise unroll the whole main loop and run out of registers.
#pragma unroll 1
    for (int kt = 0; kt < K_TILES; ++kt, ++iter) {
      const int stage = iter % STAGES;
#pragma unroll
      for (int step = 0; step < KSTEPS; ++step) {
        const int cur = step % 2;
        // Refill the stage every warp finished reading before the barrier that ended the last K tile.
        if (step == 0) load_next();
        if (step + 1 < KSTEPS) {
          load_fragments(stage, (step + 1) * 16, frag_a[cur ^ 1], frag_b[cur ^ 1]);
          multiply(frag_a[cur], frag_b[cur]);
        } else {
          // The next K tile's first fragments go to buffer 0: with an odd step count that is this
          // step's own buffer, so multiply first.
          if (KSTEPS % 2 == 1) multiply(frag_a[cur], frag_b[cur]);
          tg_cp_async_wait<STAGES - 2>();
          __syncthreads();
          if (kt + 1 < K_TILES) load_fragments((iter + 1) % STAGES, 0, frag_a[0], frag_b[0]);
          if (KSTEPS % 2 == 0) multiply(frag_a[cur], frag_b[cur]);
        }
      }
    }
    tg_epilogue(acc, C, reinterpret_cast<tg_out_t*>(smem_b + STAGES * B::STAGE_ELEMS), prob, M, N, m0, n0, wm0, wn0,
                batch, lane);
    const int next = PERSISTENT ? next_unit(unit) : ALL_UNITS;
    if (next >= ALL_UNITS) break;
    unit = next;
  }
  tg_cp_async_wait<0>();
}
