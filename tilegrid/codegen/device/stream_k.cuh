// tilegrid device helpers: stream-K partial sums in global memory. A group of `Threads` threads (an
// sm_90 consumer warpgroup) hands its sum over to the CTA holding the unit's last K tiles, which adds
// them one at a time; or, for a unit cut in step into many pieces, every piece adds a slice of all
// the sums (tg_reduce_slice). Needs wgmma.cuh first.
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

// Adds a group's partial sum into a sum at L2 by vector reductions (sm_90), in the layout of
// tg_partial_store; unordered, so the total's rounding depends on the order the pieces arrive in.
// `rows_inside`: how many of the fragment block's rows lie inside the problem. Threads whose rows all
// lie past it (a tile overhanging M) add nothing: every piece adds into the same lines, so a tile of
// a few real rows would otherwise queue all its zeros there.
template <int Threads, int N>
__device__ __forceinline__ void tg_partial_accumulate(const float (&acc)[N], float* total, int t, int rows_inside) {
  if (tg_wgmma_fragment_row(t) >= rows_inside) return;
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    float* p = total + 4 * (i * Threads + t);
    asm volatile("red.relaxed.gpu.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(acc[4 * i]),
                 "f"(acc[4 * i + 1]), "f"(acc[4 * i + 2]), "f"(acc[4 * i + 3])
                 : "memory");
  }
}

// Adds a sum that tg_partial_accumulate built and leaves zeros in its place, so that the next launch
// accumulates onto zeros; the rows it skipped are zero already, and are never stored. All the loads
// first, so that they overlap.
template <int Threads, int N>
__device__ __forceinline__ void tg_partial_take(float (&acc)[N], float* total, int t, int rows_inside) {
  if (tg_wgmma_fragment_row(t) >= rows_inside) return;
  tg_partial_add<Threads>(acc, total, t);
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    asm volatile("st.global.cg.v4.b32 [%0], {%1, %1, %1, %1};" ::"l"(total + 4 * (i * Threads + t)), "r"(0)
                 : "memory");
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

// Counts one arrival of a group whose stores precede it (after a barrier of the group), with release
// semantics at GPU scope.
__device__ __forceinline__ void tg_counter_arrive(unsigned* counter) {
  asm volatile("fence.acq_rel.gpu;\nred.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
}

// Resets a counter every arrival has passed, for the next launch.
__device__ __forceinline__ void tg_counter_clear(unsigned* counter) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");
}

__device__ __forceinline__ void tg_counter_wait(const unsigned* counter, unsigned arrivals) {
  unsigned seen = 0;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
  } while (seen < arrivals);
}

// Adds slice `slice` of `sums` partial sums (sum p at first + p * stride, each cut into `sums`
// slices) and stores it at the same place in `total`.
template <int Threads, int Floats>
__device__ __forceinline__ void tg_reduce_slice(const float* first, long long stride, int sums, int slice, float* total,
                                                int t) {
  static_assert(Floats % 4 == 0, "a sum is stored in groups of four");
  constexpr int Quads = Floats / 4;
  const int begin = slice * Quads / sums, end = (slice + 1) * Quads / sums;
  // Up to sixteen loads in flight before their adds (two groups of a thread, eight sums each): the
  // sums sit in L2, so a thread that waited on each load in turn would be latency bound.
#pragma unroll 1
  for (int i = begin + t; i < end; i += 2 * Threads) {
    const bool two = i + Threads < end;
    float s[2][4] = {};
#pragma unroll 1
    for (int p = 0; p < sums; p += 8) {
      float v[2][8][4];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          v[h][j][0] = v[h][j][1] = v[h][j][2] = v[h][j][3] = 0.f;
          if (p + j < sums && (h == 0 || two)) {
            const float* q = first + (p + j) * stride + 4 * (i + h * Threads);
            asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                         : "=f"(v[h][j][0]), "=f"(v[h][j][1]), "=f"(v[h][j][2]), "=f"(v[h][j][3])
                         : "l"(q));
          }
        }
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
#pragma unroll
          for (int e = 0; e < 4; ++e) s[h][e] += v[h][j][e];
        }
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (h == 1 && !two) break;
      float* out = total + 4 * (i + h * Threads);
      asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(out), "f"(s[h][0]), "f"(s[h][1]), "f"(s[h][2]),
                   "f"(s[h][3])
                   : "memory");
    }
  }
}
