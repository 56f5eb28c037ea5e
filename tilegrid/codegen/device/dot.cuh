// tilegrid device helpers: dot kernels (templates/dot_gemm.cu). A thread's reads of one operand row
// along K, a warp's sum, and the hand-over of a chunk's sums at L2 to the last CTA of its batch
// entry. Reads the configuration (tg_in_t); needs dtype.cuh first.
#pragma once

// `Bytes` (2, 4, 8 or 16) bytes from global memory at `at`, aligned to their size, through the
// read-only path, read once (tg_l2_evict_first), into `out`.
template <int Bytes>
__device__ __forceinline__ void tg_dot_load_once(const void* at, void* out) {
  static_assert(Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16, "a read of 2, 4, 8 or 16 bytes");
  tg_u32* w = static_cast<tg_u32*>(out);
  const tg_u64 policy = tg_l2_evict_first();
  if constexpr (Bytes == 16) {
    asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "l"(at), "l"(policy));
  } else if constexpr (Bytes == 8) {
    asm volatile("ld.global.nc.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;" : "=r"(w[0]), "=r"(w[1]) : "l"(at), "l"(policy));
  } else if constexpr (Bytes == 4) {
    asm volatile("ld.global.nc.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(w[0]) : "l"(at), "l"(policy));
  } else {
    unsigned short h;
    asm volatile("ld.global.nc.L2::cache_hint.u16 %0, [%1], %2;" : "=h"(h) : "l"(at), "l"(policy));
    *static_cast<unsigned short*>(out) = h;
  }
}

// Vec consecutive K elements of a row from `at` (element k of that row), as floats, in one access
// (evict-first where no other CTA reads the row: EvictFirst); zeros where they do not all lie before
// k_end or the row is outside the problem (`inside` false). `at` is only read inside.
template <int Vec, bool EvictFirst>
__device__ __forceinline__ void tg_dot_read(const tg_in_t* at, bool inside, long long k, long long k_end,
                                            float (&out)[Vec]) {
  struct alignas(Vec * sizeof(tg_in_t)) Piece {
    tg_in_t v[Vec];
  };
#pragma unroll
  for (int e = 0; e < Vec; ++e) out[e] = 0.f;
  if (!inside || k + Vec > k_end) return;
  Piece piece;
  if constexpr (EvictFirst) {
    tg_dot_load_once<sizeof(Piece)>(at, &piece);
  } else {
    piece = *reinterpret_cast<const Piece*>(at);
  }
#pragma unroll
  for (int e = 0; e < Vec; ++e) out[e] = tg_dtype<tg_in_t>::to_float(piece.v[e]);
}

__device__ __forceinline__ float tg_warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Adds a CTA's sum for one output into the entry's sum at L2, in the order CTAs arrive.
__device__ __forceinline__ void tg_dot_accumulate(float* total, float v) {
  asm volatile("red.relaxed.gpu.global.add.f32 [%0], %1;" ::"l"(total), "f"(v) : "memory");
}

// Counts the CTA's arrival (one thread, after a barrier that follows every thread's
// tg_dot_accumulate) with release and acquire semantics at GPU scope; true for the last of
// `arrivals`, which then resets the counter for the next launch: every arrival has passed it.
__device__ __forceinline__ bool tg_dot_arrive_last(unsigned* counter, unsigned arrivals) {
  unsigned before;
  asm volatile("fence.acq_rel.gpu;\natom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
               : "=r"(before)
               : "l"(counter)
               : "memory");
  if (before + 1 != arrivals) return false;
  asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");
  return true;
}

// Takes an entry's sum that every CTA has added to, leaving zero for the next launch.
__device__ __forceinline__ float tg_dot_take(float* total) {
  float v;
  asm volatile("atom.relaxed.gpu.global.exch.b32 %0, [%1], 0;" : "=f"(v) : "l"(total) : "memory");
  return v;
}
