// tilegrid dot kernel: C[M, N] = A[M, K] * B[K, N] in blocks of at most ROWS x COLS outputs over a
// long K (scheduler/dot_kernel.h). Built from the configuration above it, the operands' and C's
// offsets printed from the schedule's IR (tg_gmem_*), the printed epilogue and dot.cuh.
//
// CTA (blockIdx.x, blockIdx.y, blockIdx.z) takes chunk blockIdx.x of K for block blockIdx.z of batch
// entry blockIdx.y (blocks run along N, then M): prob.k_chunk_steps steps of THREADS * VEC * UNROLL
// elements. In a step, thread t reads VEC consecutive K elements of every row of A and column of B in
// the block at UNROLL places THREADS * VEC apart, and adds their products to its ROWS x COLS sums (a
// read past K's last whole VEC elements reads nothing; the first thread adds those last elements
// after the loop). The CTA then sums its threads' sums; with several chunks, it adds them at L2, and
// the last CTA of the block to arrive takes the totals, applies the epilogue and stores C. A launch
// overlapping the kernel before it waits for that kernel first.

extern "C" __global__ void __launch_bounds__(tg_config::THREADS, 1)
    TG_KERNEL_NAME(const __grid_constant__ tg_problem prob, const tg_in_t* __restrict__ A_all,
                   const tg_in_t* __restrict__ B_all, tg_out_t* __restrict__ C_all, unsigned* __restrict__ workspace) {
  using namespace tg_config;
  tg_wait_for_prior_grid();
  constexpr int K_STEP = THREADS * VEC * UNROLL;
  constexpr int OUTPUTS = ROWS * COLS;
  const int M = prob.M, N = prob.N, batch = blockIdx.y;
  const int col_blocks = (N + COLS - 1) / COLS;
  const int row0 = blockIdx.z / col_blocks * ROWS, col0 = blockIdx.z % col_blocks * COLS;
  const tg_in_t* A = A_all + batch * prob.batch_stride_a;
  const tg_in_t* B = B_all + batch * prob.batch_stride_b;
  const long long chunk = static_cast<long long>(prob.k_chunk_steps) * K_STEP;
  const long long k_begin = blockIdx.x * chunk;
  const long long k_end = min(static_cast<long long>(prob.K), k_begin + chunk);

  float sum[ROWS][COLS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
#pragma unroll
    for (int c = 0; c < COLS; ++c) sum[r][c] = 0.f;
  }
  // A row of A is read by every block of its rows, a row of B by every block of its columns: an
  // operand that one block covers along the other side is read once, and up to a size the host's
  // readOncePolicy reads it evict-first in L2 (scheduler/l2_policy.h). The loop has an instance per
  // pair of policies, so that each is straight-line code.
  tg_with_flag(prob.evict_first_a != 0, [&](auto once_a) TG_INLINE {
    tg_with_flag(prob.evict_first_b != 0, [&](auto once_b) TG_INLINE {
#pragma unroll 1
      for (long long k0 = k_begin + threadIdx.x * VEC; k0 < k_end; k0 += K_STEP) {
        float a[UNROLL][ROWS][VEC], b[UNROLL][COLS][VEC];
        // Every read of the step first, so that they are in flight together.
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
          const long long k = k0 + static_cast<long long>(u) * THREADS * VEC;
          const int kk = k < k_end ? static_cast<int>(k) : 0;
#pragma unroll
          for (int r = 0; r < ROWS; ++r) {
            const bool inside = row0 + r < M;
            tg_dot_read<VEC, decltype(once_a)::value>(A + tg_gmem_a(prob, inside ? row0 + r : 0, kk), inside, k, k_end,
                                                      a[u][r]);
          }
#pragma unroll
          for (int c = 0; c < COLS; ++c) {
            const bool inside = col0 + c < N;
            tg_dot_read<VEC, decltype(once_b)::value>(B + tg_gmem_b(prob, inside ? col0 + c : 0, kk), inside, k, k_end,
                                                      b[u][c]);
          }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
          for (int r = 0; r < ROWS; ++r) {
#pragma unroll
            for (int c = 0; c < COLS; ++c) {
#pragma unroll
              for (int e = 0; e < VEC; ++e) sum[r][c] = fmaf(a[u][r][e], b[u][c][e], sum[r][c]);
            }
          }
        }
      }
    });
  });

  // K's last elements where they do not make a whole read (VEC > 1): the chunk ending at K has them,
  // and its first thread adds them one at a time.
  const long long k_whole = static_cast<long long>(prob.K) / VEC * VEC;
  if (VEC > 1 && threadIdx.x == 0 && k_end == prob.K && k_whole < k_end) {
#pragma unroll 1
    for (int k = static_cast<int>(k_whole); k < prob.K; ++k) {
      float a[ROWS], b[COLS];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        a[r] = row0 + r < M ? tg_dtype<tg_in_t>::to_float(A[tg_gmem_a(prob, row0 + r, k)]) : 0.f;
      }
#pragma unroll
      for (int c = 0; c < COLS; ++c) {
        b[c] = col0 + c < N ? tg_dtype<tg_in_t>::to_float(B[tg_gmem_b(prob, col0 + c, k)]) : 0.f;
      }
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
#pragma unroll
        for (int c = 0; c < COLS; ++c) sum[r][c] = fmaf(a[r], b[c], sum[r][c]);
      }
    }
  }

  // The CTA's sums: each warp's by shuffles, then the warps' through shared memory, one output a
  // thread.
  __shared__ float warp_sums[THREADS / 32][OUTPUTS];
  __shared__ bool last;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
#pragma unroll
    for (int c = 0; c < COLS; ++c) {
      const float v = tg_warp_sum(sum[r][c]);
      if (lane == 0) warp_sums[warp][r * COLS + c] = v;
    }
  }
  __syncthreads();
  const int out = threadIdx.x, r = row0 + out / COLS, c = col0 + out % COLS;
  const bool owner = out < OUTPUTS && r < M && c < N;
  float total = 0.f;
  if (out < OUTPUTS) {
#pragma unroll
    for (int w = 0; w < THREADS / 32; ++w) total += warp_sums[w][out];
  }
  if (prob.k_chunks > 1) {
    // The flag area holds a counter per block of each batch entry; the accumulation area after it
    // OUTPUTS sums for each.
    const long long block = static_cast<long long>(batch) * gridDim.z + blockIdx.z;
    float* totals = reinterpret_cast<float*>(workspace + FLAG_WORDS) + block * OUTPUTS;
    if (owner) tg_dot_accumulate(totals + out, total);
    __syncthreads();
    if (threadIdx.x == 0) last = tg_dot_arrive_last(workspace + block, static_cast<unsigned>(prob.k_chunks));
    __syncthreads();
    if (!last) return;
    if (owner) total = tg_dot_take(totals + out);
  }
  if (!owner) return;
  // The epilogue's operands are the caller's: computing C^T, output (r, c) is the caller's (c, r).
  const int m = C_TRANSPOSED ? c : r, n = C_TRANSPOSED ? r : c;
  float v = total;
  if constexpr (HAS_EPILOGUE) {
    float aux;
    v = tg_epilogue_value(total, m, n, batch, prob.epilogue, tg_ep_load_inputs(prob.epilogue, m, n, batch), aux);
    if constexpr (EPILOGUE_AUX) tg_ep_store_aux<tg_aux_t>(prob.epilogue, m, n, batch, aux);
  }
  C_all[batch * prob.batch_stride_c + tg_gmem_c(prob, r, c)] = tg_dtype<tg_out_t>::from_float(v);
}
