// tilegrid pointwise epilogue: C = epilogue(C) in place over a row-major output of `batch` entries of
// M x N, after a GEMM that stored the plain product: the unfused pair a fused epilogue is measured
// against. Built from the configuration above it (tg_out_t, VEC), the printed tg_epilogue_value and
// the operand reads of fused_epilogue.cuh.
// Each thread takes VEC consecutive elements of a row, in one access where they make 16 bytes.

template <int Vec>
struct tg_chunk {
  tg_out_t v[Vec];
};

extern "C" __global__ void TG_KERNEL_NAME(tg_out_t* __restrict__ C, int M, int N, int batch, long long ldc,
                                          long long batch_stride_c, const __grid_constant__ tg_epilogue_args ep) {
  using namespace tg_config;
  const long long chunks_per_row = N / VEC;
  const long long total = static_cast<long long>(batch) * M * chunks_per_row;
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += step) {
    const int n = static_cast<int>(i % chunks_per_row) * VEC;
    const long long row = i / chunks_per_row;
    const int m = static_cast<int>(row % M), b = static_cast<int>(row / M);
    auto* at = reinterpret_cast<tg_chunk<VEC>*>(C + b * batch_stride_c + m * ldc + n);
    tg_chunk<VEC> chunk = *at;
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const float acc = tg_dtype<tg_out_t>::to_float(chunk.v[e]);
      float aux;
      chunk.v[e] = tg_dtype<tg_out_t>::from_float(tg_epilogue_value(acc, m, n + e, b, ep, tg_ep_load_inputs(ep, m, n + e, b), aux));
      if (EPILOGUE_AUX) tg_ep_store_aux<tg_aux_t>(ep, m, n + e, b, aux);
    }
    *at = chunk;
  }
}
