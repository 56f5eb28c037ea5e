// tilegrid device helpers: common. Embedded into generated sources by the build; NVRTC needs no
// other include to compile them.
#pragma once

typedef unsigned int tg_u32;
typedef unsigned long long tg_u64;

// In the first operand's type: index math printed in 64 bits passes its constants as they are.
template <typename T, typename U>
__host__ __device__ constexpr T ceilDiv(T a, U b) {
  return (a + static_cast<T>(b) - 1) / static_cast<T>(b);
}

// The 32-bit shared-state-space address PTX instructions take.
__device__ __forceinline__ tg_u32 tg_smem_addr(const void* p) {
  return static_cast<tg_u32>(__cvta_generic_to_shared(p));
}

// A barrier among `threads` threads (a multiple of 32) on hardware barrier `id` (1-15; 0 is __syncthreads).
__device__ __forceinline__ void tg_named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// A configuration's list of integers (tilegrid/codegen/config_block.h: ConfigBlock::array). A struct, not an
// array: device code copies it into a local constexpr and indexes that (a namespace-scope array is
// host memory to device code).
template <int N>
struct tg_ints {
  int v[N];
  __host__ __device__ constexpr int operator[](int i) const { return v[i]; }
};
