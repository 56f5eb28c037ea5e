// tilegrid device helpers: element types. Each kernel's configuration names its input and output
// types (tg_in_t, tg_out_t); these traits say how fp32 accumulators become them, one value or an
// adjacent pair at a time, with round-to-nearest-even.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
struct tg_dtype;

// 8-bit float inputs (e4m3, e5m2): bytes that TMA lands and wgmma reads, never computed with here.
struct tg_e4m3 {
  unsigned char bits;
};
struct tg_e5m2 {
  unsigned char bits;
};

template <>
struct tg_dtype<__nv_bfloat16> {
  typedef __nv_bfloat162 pair;
  static constexpr bool bf16 = true;
  static __device__ __forceinline__ __nv_bfloat16 from_float(float v) { return __float2bfloat16_rn(v); }
  static __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ pair from_floats(float v0, float v1) { return __floats2bfloat162_rn(v0, v1); }
  static __device__ __forceinline__ void to_floats(pair p, float& v0, float& v1) { v0 = __low2float(p), v1 = __high2float(p); }
};

template <>
struct tg_dtype<__half> {
  typedef __half2 pair;
  static constexpr bool bf16 = false;
  static __device__ __forceinline__ __half from_float(float v) { return __float2half_rn(v); }
  static __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
  static __device__ __forceinline__ pair from_floats(float v0, float v1) { return __floats2half2_rn(v0, v1); }
  static __device__ __forceinline__ void to_floats(pair p, float& v0, float& v1) { v0 = __low2float(p), v1 = __high2float(p); }
};

template <>
struct tg_dtype<float> {
  typedef float2 pair;
  static constexpr bool bf16 = false;
  static __device__ __forceinline__ float from_float(float v) { return v; }
  static __device__ __forceinline__ float to_float(float v) { return v; }
  static __device__ __forceinline__ pair from_floats(float v0, float v1) { return make_float2(v0, v1); }
  static __device__ __forceinline__ void to_floats(pair p, float& v0, float& v1) { v0 = p.x, v1 = p.y; }
};

// Stores fp32 values v0 and v1 as two adjacent elements of type T at `dst` (aligned for the pair).
template <typename T>
__device__ __forceinline__ void tg_store_pair(T* dst, float v0, float v1) {
  *reinterpret_cast<typename tg_dtype<T>::pair*>(dst) = tg_dtype<T>::from_floats(v0, v1);
}

// The pair packed in one register: two 16-bit elements (what stmatrix stores).
template <typename T>
__device__ __forceinline__ tg_u32 tg_pack_pair(float v0, float v1) {
  static_assert(sizeof(typename tg_dtype<T>::pair) == 4, "a packed pair holds two 16-bit elements");
  const typename tg_dtype<T>::pair p = tg_dtype<T>::from_floats(v0, v1);
  return *reinterpret_cast<const tg_u32*>(&p);
}
