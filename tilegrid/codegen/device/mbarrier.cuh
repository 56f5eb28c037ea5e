// tilegrid device helpers: mbarrier (sm_90), raw PTX with parity waits.
#pragma once

__device__ __forceinline__ void tg_mbarrier_init(tg_u64* bar, tg_u32 arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tg_smem_addr(bar)), "r"(arrivals) : "memory");
}

// Makes initialised barriers visible to the async proxy (TMA) and, with clusters, to peer CTAs.
__device__ __forceinline__ void tg_mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Arrives and announces `bytes` of transactions (TMA completions) for the current phase.
__device__ __forceinline__ void tg_mbarrier_arrive_expect_tx(tg_u64* bar, tg_u32 bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tg_smem_addr(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void tg_mbarrier_arrive(tg_u64* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(tg_smem_addr(bar)) : "memory");
}

// Whether the barrier has completed the phase of parity `phase`, asked once without waiting (with
// the same acquire as a wait that returns).
__device__ __forceinline__ bool tg_mbarrier_test(tg_u64* bar, tg_u32 phase) {
  tg_u32 done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(tg_smem_addr(bar)), "r"(phase)
      : "memory");
  return done != 0;
}

// Spins until the phase with parity `phase` has completed.
__device__ __forceinline__ void tg_mbarrier_wait(tg_u64* bar, tg_u32 phase) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "TG_WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra TG_WAIT_%=;\n"
      "}\n" ::"r"(tg_smem_addr(bar)),
      "r"(phase)
      : "memory");
}
