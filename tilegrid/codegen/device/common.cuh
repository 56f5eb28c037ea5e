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

// Programmatic dependent launch: a kernel launched to overlap the end of the kernel before it in its
// stream (LaunchConfig::after_prior_grid, sm_90 devices) waits here, before its first access to
// global memory, until that kernel has completed and its writes are visible. Launched normally, or
// compiled for an older target, it returns at once.
__device__ __forceinline__ void tg_wait_for_prior_grid() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The 32-bit shared-state-space address PTX instructions take.
__device__ __forceinline__ tg_u32 tg_smem_addr(const void* p) {
  return static_cast<tg_u32>(__cvta_generic_to_shared(p));
}

// The L2 policy (createpolicy, sm_80 on) for bytes that no other CTA of the launch reads again: an
// operand whose every tile one CTA loads (scheduler/l2_policy.h). Read evict-first, such a stream
// recycles its own lines in L2 instead of pushing out what other CTAs read again, or written lines
// that would be written back to DRAM while the kernel reads. Other reads carry no policy.
__device__ __forceinline__ tg_u64 tg_l2_evict_first() {
  tg_u64 policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// A barrier among `threads` threads (a multiple of 32) on hardware barrier `id` (1-15; 0 is __syncthreads).
__device__ __forceinline__ void tg_named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Arrives on hardware barrier `id` without waiting: the threads that sync on it wait for these.
__device__ __forceinline__ void tg_named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// A configuration's list of integers (tilegrid/codegen/config_block.h: ConfigBlock::array). A struct, not an
// array: device code copies it into a local constexpr and indexes that (a namespace-scope array is
// host memory to device code).
template <int N>
struct tg_ints {
  int v[N];
  __host__ __device__ constexpr int operator[](int i) const { return v[i]; }
};

// On a lambda: inline it into its caller. Code instantiated per tile width (tg_with_width) is
// otherwise left as calls, and ptxas serializes wgmmas across them.
#define TG_INLINE __attribute__((always_inline))

// A compile-time int (a tile width, a traversal factor) passed to generic code instantiated once
// per value the launch may pick.
template <int V>
struct tg_const {
  static constexpr int value = V;
};

// Calls f(tg_const<w>{}) for the launch's width `w`, one of Lo, Lo + Step, ..., Hi: each width gets its
// own straight-line instance of f (its wgmma shape and accumulator registers), and one branch per
// call picks it. A width outside the list takes Hi's (the host passes only listed widths).
template <int Lo, int Hi, int Step, typename F>
__device__ __forceinline__ void tg_with_width(int w, F&& f) {
  if constexpr (Lo >= Hi) {
    f(tg_const<Hi>{});
  } else {
    if (w == Lo) {
      f(tg_const<Lo>{});
    } else {
      tg_with_width<Lo + Step, Hi, Step>(w, f);
    }
  }
}

// Calls f(tg_const<v>{}) for the launch's value `v`, one of the powers of two Lo, 2 Lo, ..., Hi, each
// with its own instance of f. A value outside the list takes Hi's (the host passes only listed values).
template <int Lo, int Hi, typename F>
__device__ __forceinline__ void tg_with_power_of_two(int v, F&& f) {
  if constexpr (Lo >= Hi) {
    f(tg_const<Hi>{});
  } else {
    if (v == Lo) {
      f(tg_const<Lo>{});
    } else {
      tg_with_power_of_two<2 * Lo, Hi>(v, f);
    }
  }
}

// Calls f(tg_const<v>{}) for a choice the kernel may hold several values of (the traversal's factor,
// the cluster size): where it reads the choice at launch (AtLaunch), the launch's `v`, a power of
// two up to Max, so that code instanced per value divides by a constant; else the compiled-in Max.
template <bool AtLaunch, int Max, typename F>
__device__ __forceinline__ void tg_with_launch_choice(int v, F&& f) {
  if constexpr (AtLaunch) {
    tg_with_power_of_two<1, Max>(v, f);
  } else {
    f(tg_const<Max>{});
  }
}

// Calls f(tg_const<1>{}) where `v` holds, else f(tg_const<0>{}): an instance of f per value.
template <typename F>
__device__ __forceinline__ void tg_with_flag(bool v, F&& f) {
  if (v) {
    f(tg_const<1>{});
  } else {
    f(tg_const<0>{});
  }
}

// The orientation C is stored in: straight (the kernel computes C = A B) or transposed (C^T = B^T A^T,
// each tile stored turned). The printed index functions of C take it first, so that a kernel holding
// both orientations calls each by overload.
template <bool Transposed>
struct tg_c_orientation {
  static constexpr bool transposed = Transposed;
};

// The leading N registers of an accumulator array, as the array a narrower instruction writes.
template <int N, int Regs>
__device__ __forceinline__ float (&tg_leading(float (&acc)[Regs]))[N] {
  static_assert(N <= Regs, "a leading part of the array");
  return *reinterpret_cast<float(*)[N]>(&acc);
}
