// tilegrid device helpers: cp.async (sm_80 and later), global to shared memory without registers,
// raw PTX. sm_80 kernels copy their operand tiles with it; sm_90 kernels their block scales.
#pragma once

// Copies `bytes` (4, 8 or 16) from global to shared memory asynchronously. Only `src_bytes` are
// read; the rest of the destination is zero-filled, which predicates edges and K tails. 16-byte
// pieces hint L2 to fetch the whole 128-byte line around them, which the tile's other pieces mostly
// read (docs/findings.md, *cp.async's 16-byte pieces ask L2 for the whole 128-byte line*).
template <int Bytes>
__device__ __forceinline__ void tg_cp_async(tg_u32 smem_dst, const void* gmem_src, int src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(smem_dst), "l"(gmem_src), "r"(src_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(smem_dst), "l"(gmem_src), "n"(Bytes),
                 "r"(src_bytes)
                 : "memory");
  }
}

template <int Bytes>
__device__ __forceinline__ void tg_cp_async(void* smem_dst, const void* gmem_src, int src_bytes) {
  tg_cp_async<Bytes>(tg_smem_addr(smem_dst), gmem_src, src_bytes);
}

__device__ __forceinline__ void tg_cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

template <int Pending>
__device__ __forceinline__ void tg_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// The barrier counts one arrival of this thread once every cp.async it issued before has landed
// (the arrival is one of those the barrier was initialized to expect).
__device__ __forceinline__ void tg_cp_async_arrive(tg_u64* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(tg_smem_addr(bar)) : "memory");
}
