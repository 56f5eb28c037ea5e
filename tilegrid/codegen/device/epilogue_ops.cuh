// tilegrid device helpers: the operations of a fused epilogue. The kernel's printed
// tg_epilogue_value (from its ir::Epilogue) computes each output element from its fp32 value with
// these, in fp32: the activations, rounding to 16-bit types, and the reads of the epilogue's operands
// at an element (m, n) of batch entry `batch` in the caller's terms (tg_epilogue_args). Needs
// dtype.cuh and problem.cuh first.
//
// The epilogue runs between the main loop and the stores, where nothing else hides its latency, so
// tanh and exp use the special-function unit's approximations (tanh.approx.f32, ex2.approx.f32 through
// __expf): relative errors of about 2^-11 and 2^-21, under the rounding of bf16 and fp16 outputs. erf
// comes from a branch-free Chebyshev fit of erfc (Numerical Recipes' erfcc, fractional error under
// 1.2e-7) around one exponential, where CUDA's erff branches by range.
#pragma once

__device__ __forceinline__ float tg_tanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float tg_exp(float x) { return __expf(x); }
__device__ __forceinline__ float tg_relu(float x) { return fmaxf(x, 0.f); }
__device__ __forceinline__ float tg_erf(float x) {
  const float z = fabsf(x), t = __fdividef(1.f, 1.f + 0.5f * z);
  float p = 0.17087277f;
  p = fmaf(p, t, -0.82215223f);
  p = fmaf(p, t, 1.48851587f);
  p = fmaf(p, t, -1.13520398f);
  p = fmaf(p, t, 0.27886807f);
  p = fmaf(p, t, -0.18628806f);
  p = fmaf(p, t, 0.09678418f);
  p = fmaf(p, t, 0.37409196f);
  p = fmaf(p, t, 1.00002368f);
  p = fmaf(p, t, -1.26551223f);
  const float erfc = t * tg_exp(fmaf(-z, z, p));
  return copysignf(1.f - erfc, x);
}
// x * Phi(x), Phi the standard normal CDF, as h + h erf(x / sqrt(2)) with h = x / 2: the last step
// one fma.
__device__ __forceinline__ float tg_gelu(float x) {
  const float h = 0.5f * x;
  return fmaf(h, tg_erf(x * 0.70710678118654752f), h);
}
// The tanh approximation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), with the polynomial as
// x (c0 + c1 x^2) and the outer product as h + h tanh(.): five fp32 instructions and the tanh,
// where the formula as written takes eight. The epilogue issues them for every element of a tile
// while the tensor cores wait (the cooperative kernel's epilogue), so each one costs.
__device__ __forceinline__ float tg_gelu_tanh(float x) {
  constexpr float c0 = 0.79788456080286536f, c1 = 0.79788456080286536f * 0.044715f;
  const float h = 0.5f * x;
  return fmaf(h, tg_tanh(x * fmaf(c1, x * x, c0)), h);
}
__device__ __forceinline__ float tg_sigmoid(float x) { return __fdividef(1.f, 1.f + tg_exp(-x)); }
__device__ __forceinline__ float tg_silu(float x) { return x * tg_sigmoid(x); }
template <typename T>
__device__ __forceinline__ float tg_round_to(float x) {
  return tg_dtype<T>::to_float(tg_dtype<T>::from_float(x));
}

// The read-only operands are read through the non-coherent path (ld.global.nc): they do not change
// while the kernel runs.
// bias[m] or bias[n]: element `i` of the batch entry's vector.
template <typename T>
__device__ __forceinline__ float tg_ep_vector(const tg_epilogue_args& ep, int i, int batch) {
  return tg_dtype<T>::to_float(__ldg(static_cast<const T*>(ep.bias) + batch * ep.batch_stride_bias + i));
}

// scale_a or scale_b: element `i` of the batch entry's vector of row (column) scales, or with i, batch
// 0 the one scale of a tensor.
__device__ __forceinline__ float tg_ep_scale(const float* scale, long long batch_stride, int i, int batch) {
  return __ldg(scale + batch * batch_stride + i);
}

// Element (m, n) of a matrix of C's shape with leading dimension `ld`.
template <typename T>
__device__ __forceinline__ float tg_ep_matrix(const void* base, long long ld, long long batch_stride, int m, int n,
                                              int batch) {
  return tg_dtype<T>::to_float(__ldg(static_cast<const T*>(base) + batch * batch_stride + m * ld + n));
}

// The operands tg_epilogue_value reads from memory at one (m, n): the matrices' elements and the
// vectors' (bias, row or column scales, or a tensor's one scale). Read there by tg_ep_load_inputs
// (fused_epilogue.cuh), or by a caller that reads several elements in one access and each vector
// element once for all the elements that use it (tg_load_row_piece, tg_slab_vectors).
struct tg_ep_inputs {
  float c, residual;
  float bias, scale_a, scale_b;
};

// Where an epilogue vector runs: along m (rows), along n (columns), or one value for the whole
// tensor (tensor scales); none where the epilogue has no such vector. The configuration gives each
// vector's (EPILOGUE_*_AXIS) in the caller's terms.
enum : int { TG_VECTOR_NONE = 0, TG_VECTOR_M = 1, TG_VECTOR_N = 2, TG_VECTOR_ONE = 3 };

template <typename T>
__device__ __forceinline__ void tg_ep_store_aux(const tg_epilogue_args& ep, int m, int n, int batch, float v) {
  static_cast<T*>(ep.aux)[batch * ep.batch_stride_aux + m * ep.ld_aux + n] = tg_dtype<T>::from_float(v);
}

// Elements (m, n) and (m, n + 1) of aux, n even: one store of the pair where every row and batch
// entry of aux starts on a pair boundary, else two.
template <typename T>
__device__ __forceinline__ void tg_ep_store_aux_pair(const tg_epilogue_args& ep, int m, int n, int batch, float v0,
                                                     float v1) {
  T* at = static_cast<T*>(ep.aux) + batch * ep.batch_stride_aux + m * ep.ld_aux + n;
  if (((ep.ld_aux | ep.batch_stride_aux) & 1) == 0 && (reinterpret_cast<unsigned long long>(ep.aux) % (2 * sizeof(T))) == 0) {
    tg_store_pair(at, v0, v1);
  } else {
    at[0] = tg_dtype<T>::from_float(v0);
    at[1] = tg_dtype<T>::from_float(v1);
  }
}
