// @HEADER@
//
// tilegrid sm_80 GEMM: C[M, N] = A[M, K] * B[K, N] in @IN_TYPE@ with fp32 accumulation, @OUT_TYPE@ out.
// mma.sync m16n8k16, ldmatrix, @STAGES@-stage cp.async pipeline. Self-contained: compiles with NVRTC
// alone, or with `nvcc -arch=sm_80 -cubin`. Every schedule-dependent index is one of the tg_*
// functions below, printed by tilegrid from its IterDomain IR.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

@HELPERS@
// ---- index functions, printed from the Indexer ----
@INDEX_FUNCTIONS@
// ---- kernel ----
typedef @IN_TYPE@ tg_in_t;
typedef @OUT_TYPE@ tg_out_t;

__device__ __forceinline__ tg_out_t tg_convert(float v) { return @CONVERT@; }

extern "C" __global__ void __launch_bounds__(@THREADS@, 1) @KERNEL_NAME@([[maybe_unused]] const tg_problem prob,
                                                                     const tg_in_t* __restrict__ A_all,
                                                                     const tg_in_t* __restrict__ B_all,
                                                                     tg_out_t* __restrict__ C_all) {
  // The problem's sizes: fields of `prob`, or constants where the shape is compiled in.
  const int M = @M@, N = @N@, K = @K@;
  constexpr int BM = @BM@, BN = @BN@, BK = @BK@, STAGES = @STAGES@;
  constexpr int TM = @TM@, TN = @TN@, MI = TM / 16, NI = TN / 8;
  const int K_TILES = @K_TILES@;
  // Work units per batch entry (tiles, plus split-merge's overhang) and in all (the schedule refuses
  // problems of more than 2^31 - 1).
  const int UNITS = @UNITS@, ALL_UNITS = UNITS * @BATCH@;
  // Persistent: the grid is smaller than the units and each CTA walks several. Otherwise each CTA
  // takes exactly one unit.
  constexpr bool PERSISTENT = @PERSISTENT@;

  extern __shared__ __align__(128) unsigned char tg_smem_raw[];
  // Bank behaviour of the swizzle assumes 128-byte aligned tiles; dynamic smem promises 16 bytes.
  tg_in_t* smem_a = reinterpret_cast<tg_in_t*>(tg_smem_raw + ((128 - (tg_smem_addr(tg_smem_raw) & 127)) & 127));
  tg_in_t* smem_b = smem_a + STAGES * BM * BK;
  const tg_u32 smem_a_addr = tg_smem_addr(smem_a), smem_b_addr = tg_smem_addr(smem_b);

  // A CTA walks units blockIdx.x, + gridDim.x, ...: one unit when the grid covers them all, several
  // when the grid is persistent. Units past the grid (split-merge's overhang) are skipped.
  auto tile_of = [&](int unit, int& m0, int& n0, int& batch) {
    int tile_m, tile_n;
    bool tile_valid;
    tg_tile_of(prob, unit % UNITS, tile_m, tile_n, tile_valid);
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
  @COPY_SETUP@
  auto bind_loads = [&](int u) {
    tile_of(u, load_m0, load_n0, load_batch);
    load_A = A_all + static_cast<long long>(load_batch) * @A_BATCH_STRIDE@;
    load_B = B_all + static_cast<long long>(load_batch) * @B_BATCH_STRIDE@;
    load_inside = load_m0 + BM <= M && load_n0 + BN <= N;
    @COPY_BIND@
  };

  constexpr int A_STAGE_ELEMS = @A_STAGE_ELEMS@, B_STAGE_ELEMS = @B_STAGE_ELEMS@;
  // One K tile of A and B into `stage`: 16-byte pieces (read in narrower parts from misaligned
  // operands), zero-filled past M, N and K. Only K tiles that reach past an edge are `checked`: the
  // bounds arithmetic of every piece would otherwise run in the main loop of every tile. `checked` is
  // a constant at both inlined calls, so each gets its own copy code; a generic lambda taking a
  // compile-time flag would be clearer, but NVRTC compiles its call operator as host code.
  const bool EDGES = M % BM != 0 || N % BN != 0 || K % BK != 0;
  auto load_tile = [&](int kt, int stage, bool checked) {
    const int k0 = kt * BK;
    @COPY_A@
    @COPY_B@
  };

  const int lane = threadIdx.x % 32;
  int warp_m, warp_n;
  // Shuffled from lane 0 so that ptxas knows the warp index is warp-uniform.
  tg_warp_of(__shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 32), 0), warp_m, warp_n);
  const int wm0 = warp_m * TM, wn0 = warp_n * TN;
  const int quad = lane / 8, quad_row = lane % 8;
  @FRAGMENT_SETUP@

  float acc[MI][NI][4];
  // One k16 step's fragments of A and B from `stage`, k offset `kk`, by ldmatrix.
  auto load_fragments = [&](int stage, int kk, tg_u32 (&a)[MI][4], tg_u32 (&b)[NI][2]) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      // ldmatrix x4 quads: (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15)
      @LDMATRIX_A@
    }
#pragma unroll
    for (int nj = 0; nj < NI / 2; ++nj) {
      // quads: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15)
      tg_u32 r[4];
      @LDMATRIX_B@
      b[2 * nj][0] = r[0];
      b[2 * nj][1] = r[1];
      b[2 * nj + 1][0] = r[2];
      b[2 * nj + 1][1] = r[3];
    }
  };
  // The schedule's mma order: row block by row block, or column by column, down and back up.
  constexpr bool MMA_BY_COLUMNS = @MMA_BY_COLUMNS@;
  auto multiply = [&](const tg_u32 (&a)[MI][4], const tg_u32 (&b)[NI][2]) {
    if constexpr (MMA_BY_COLUMNS) {
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int i = 0; i < MI; ++i) {
          const int mi = ni % 2 == 0 ? i : MI - 1 - i;
          tg_mma_m16n8k16<@IS_BF16@>(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
        }
    } else {
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) tg_mma_m16n8k16<@IS_BF16@>(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
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
    tg_out_t* C = C_all + static_cast<long long>(batch) * @BATCH_STRIDE_C@;
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
    @EPILOGUE@
    const int next = PERSISTENT ? next_unit(unit) : ALL_UNITS;
    if (next >= ALL_UNITS) break;
    unit = next;
  }
  tg_cp_async_wait<0>();
}
