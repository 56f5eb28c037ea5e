// tilegrid device helpers: thread block clusters (sm_90), raw PTX.
#pragma once

__device__ __forceinline__ int tg_cluster_rank() {
  tg_u32 rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return static_cast<int>(rank);
}

// The CTAs in this CTA's cluster (1 in a launch without clusters). Volatile: read where it is used,
// so that no register holds it across a loop.
__device__ __forceinline__ int tg_cluster_ctas() {
  int ctas;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(ctas));
  return ctas;
}

// Every thread of every CTA in the cluster arrives and waits, so that no peer multicasts into this
// CTA's shared memory or arrives on its barriers before they are initialised. The arrival is relaxed:
// the initialisation is published by tg_mbarrier_init_fence, and a releasing arrival would wait for
// every memory access of the thread before it.
__device__ __forceinline__ void tg_cluster_sync_after_init() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Arrives on the barrier at `bar`'s offset in the shared memory of cluster CTA `rank` (default
// release.cta semantics: the arrival only says this CTA's wgmma reads of a stage are done, which
// wgmma.wait_group already ensured).
__device__ __forceinline__ void tg_mbarrier_arrive_cluster(tg_u64* bar, int rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(tg_smem_addr(bar)),
      "r"(rank)
      : "memory");
}

// Frees a ring stage for the producer: every CTA of a cluster of `cluster_ctas` (at most MaxCtas)
// whose B tile the stage shares waits on its own empty barrier for all of them. A kernel holding
// several sizes reads the launch's (warp-uniform); the arrivals stay unrolled.
template <int MaxCtas>
__device__ __forceinline__ void tg_release_stage(tg_u64* empty, int cluster_ctas) {
  if (MaxCtas > 1 && cluster_ctas > 1) {
#pragma unroll
    for (int r = 0; r < MaxCtas; ++r) {
      if (r < cluster_ctas) tg_mbarrier_arrive_cluster(empty, r);
    }
  } else {
    tg_mbarrier_arrive(empty);
  }
}
