// tilegrid device helpers: stream-K partial sums in global memory, handed from the CTAs holding a
// unit's earlier K tiles to the one holding its last. A group of `Threads` threads (an sm_90
// consumer warpgroup) hands over or takes one sum at a time.
#pragma once

// A partial sum lives in global memory in the accumulator's own register order, thread-interleaved:
// register group i of thread t at float4 index i * Threads + t, so each warp's stores are whole lines.
template <int Threads, int N>
__device__ __forceinline__ void tg_partial_store(const float (&acc)[N], float* slot, int t) {
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    float* p = slot + 4 * (i * Threads + t);
    asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(acc[4 * i]), "f"(acc[4 * i + 1]),
                 "f"(acc[4 * i + 2]), "f"(acc[4 * i + 3])
                 : "memory");
  }
}

// Adds a partial sum stored by tg_partial_store; reads bypass L1, which is not coherent.
template <int Threads, int N>
__device__ __forceinline__ void tg_partial_add(float (&acc)[N], const float* slot, int t) {
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    const float* p = slot + 4 * (i * Threads + t);
    float x, y, z, w;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "l"(p) : "memory");
    acc[4 * i] += x;
    acc[4 * i + 1] += y;
    acc[4 * i + 2] += z;
    acc[4 * i + 3] += w;
  }
}

// Publishes a group's partial sum: every thread's stores, then (one thread) the flag, with release
// semantics at GPU scope.
template <int Threads>
__device__ __forceinline__ void tg_partial_publish(unsigned* flag, int t, int barrier) {
  tg_named_barrier_sync(barrier, Threads);
  if (t == 0) asm volatile("fence.acq_rel.gpu;\nst.relaxed.gpu.global.u32 [%0], 1;" ::"l"(flag) : "memory");
}

// Waits for a published partial sum and clears its flag for the next launch.
template <int Threads>
__device__ __forceinline__ void tg_partial_acquire(unsigned* flag, int t, int barrier) {
  if (t == 0) {
    unsigned ready = 0;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(ready) : "l"(flag) : "memory");
    } while (ready == 0);
    asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(flag) : "memory");
  }
  tg_named_barrier_sync(barrier, Threads);
}
