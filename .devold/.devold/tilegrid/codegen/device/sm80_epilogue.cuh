// tilegrid kernel parts: the sm_80 epilogue. Each thread holds rows lane / 4 and lane / 4 + 8, columns
// 2 (lane % 4) and + 1 of every 16x8 mma tile. Stored straight from registers that is 8-row patches of
// 16 bytes, four bytes a lane, and the store queue backs up. Where the configuration stages the
// epilogue (STAGED_EPILOGUE), each warp writes 16 rows of its tile at a time into its own slab of
// tg_smem_epilogue (swizzled, so the 4-byte writes are conflict-free) and reads them back as 16-byte
// row chunks: C is written in full 16-byte stores, an eighth of the instructions. The slabs sit apart
// from the operand stages, so nothing waits for the other warps or for the copies of a persistent
// CTA's next tile. Reads the configuration and the printed index functions.
#pragma once

// Calls store(r, c, v0, v1) for each pair of the thread's accumulators in one 16-row block of the warp
// tile: (r, c) and (r, c + 1) relative to the block.
template <int NI, typename Store>
__device__ __forceinline__ void tg_for_each_pair(const float (&acc)[NI][4], int lane, Store store) {
#pragma unroll
  for (int ni = 0; ni < NI; ++ni) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      store(lane / 4 + half * 8, ni * 8 + (lane % 4) * 2, acc[ni][2 * half], acc[ni][2 * half + 1]);
    }
  }
}

// Stores the warp tile at (m0 + wm0, n0 + wn0) of C (its batch entry), clipped at M and N, each pair
// through the fused epilogue where the configuration has one (tg_epilogue_pair), a 16-row block's
// operands at a time.
template <int MI, int NI>
__device__ __forceinline__ void tg_epilogue(const float (&acc)[MI][NI][4], tg_out_t* C, tg_out_t* smem_c,
                                            const tg_problem& prob, int M, int N, int m0, int n0, int wm0, int wn0,
                                            int batch, int lane) {
  using namespace tg_config;
  if constexpr (STAGED_EPILOGUE) {
    const int slab = (threadIdx.x / 32) * 16;
    constexpr int VEC = 16 / sizeof(tg_out_t), ROW_CHUNKS = TN / VEC, ROWS = 32 / ROW_CHUNKS;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      tg_for_each_pair(acc[mi], lane, [&](int r, int c, float v0, float v1) {
        tg_epilogue_pair<false>(v0, v1, prob.epilogue, m0 + wm0 + mi * 16 + r, n0 + wn0 + c, M, N, batch);
        tg_store_pair(smem_c + tg_smem_epilogue(slab + r, c, 0), v0, v1);
      });
      __syncwarp();
#pragma unroll
      for (int pass = 0; pass < 16 / ROWS; ++pass) {
        const int r = pass * ROWS + lane / ROW_CHUNKS, c = (lane % ROW_CHUNKS) * VEC;
        const uint4 v = *reinterpret_cast<const uint4*>(smem_c + tg_smem_epilogue(slab + r, c, 0));
        const int m = m0 + wm0 + mi * 16 + r, n = n0 + wn0 + c;
        // N is a multiple of VEC here: a chunk lies wholly inside C or wholly outside.
        if (m < M && n < N) *reinterpret_cast<uint4*>(C + tg_gmem_c(prob, m, n)) = v;
      }
      __syncwarp();  // the next slab overwrites what other lanes just read
    }
  } else {
    // Straight from the accumulators to C: a pair of elements at once where C is 4-byte aligned and
    // the pair lies inside N (PAIRED_C), else one guarded element at a time.
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      tg_for_each_pair(acc[mi], lane, [&](int r, int c, float v0, float v1) {
        const int m = m0 + wm0 + mi * 16 + r, n = n0 + wn0 + c;
        tg_epilogue_pair<false>(v0, v1, prob.epilogue, m, n, M, N, batch);
        if (m >= M) return;
        if (PAIRED_C && n + 1 < N) {
          tg_store_pair(C + tg_gmem_c(prob, m, n), v0, v1);
        } else {
          if (n < N) C[tg_gmem_c(prob, m, n)] = tg_dtype<tg_out_t>::from_float(v0);
          if (n + 1 < N) C[tg_gmem_c(prob, m, n + 1)] = tg_dtype<tg_out_t>::from_float(v1);
        }
      });
    }
  }
}
