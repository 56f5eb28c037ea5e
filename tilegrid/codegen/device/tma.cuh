// tilegrid device helpers: TMA (cp.async.bulk.tensor, sm_90). NVRTC cannot include cuda.h, so the
// tensor map is declared here: 128 opaque bytes, 64-byte aligned, passed by value as
// `const __grid_constant__ tg_tensor_map`.
#pragma once

struct alignas(64) tg_tensor_map {
  tg_u64 opaque[16];
};

// Loads the box at coordinates (c0, c1) (innermost first) into shared memory; completion is
// signalled on `bar` as transaction bytes. `evict_first`: the box's bytes are read once
// (tg_l2_evict_first).
__device__ __forceinline__ void tg_tma_load_2d(void* smem_dst, const tg_tensor_map* map, int c0, int c1, tg_u64* bar,
                                               bool evict_first = false) {
  if (evict_first) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, "
        "{%2, %3}], [%4], %5;" ::"r"(tg_smem_addr(smem_dst)),
        "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(tg_smem_addr(bar)), "l"(tg_l2_evict_first())
        : "memory");
    return;
  }
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          tg_smem_addr(smem_dst)),
      "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(tg_smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void tg_tma_load_3d(void* smem_dst, const tg_tensor_map* map, int c0, int c1, int c2,
                                               tg_u64* bar, bool evict_first = false) {
  if (evict_first) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, "
        "{%2, %3, %4}], [%5], %6;" ::"r"(tg_smem_addr(smem_dst)),
        "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(tg_smem_addr(bar)), "l"(tg_l2_evict_first())
        : "memory");
    return;
  }
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];" ::"r"(tg_smem_addr(smem_dst)),
      "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(tg_smem_addr(bar))
      : "memory");
}

// Stores a shared-memory box to global memory at (c0, c1); pair with tg_tma_store_commit/wait.
__device__ __forceinline__ void tg_tma_store_2d(const tg_tensor_map* map, int c0, int c1, const void* smem_src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                   reinterpret_cast<tg_u64>(map)),
               "r"(c0), "r"(c1), "r"(tg_smem_addr(smem_src))
               : "memory");
}

__device__ __forceinline__ void tg_tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// Orders this thread's ordinary shared-memory writes before later async-proxy reads (TMA, wgmma).
__device__ __forceinline__ void tg_fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// As tg_tma_load_2d/3d, but the box lands at the same shared-memory offset in every CTA of the
// cluster named in `cta_mask`, and completes on each one's barrier at `bar`'s offset.
__device__ __forceinline__ void tg_tma_load_2d_multicast(void* smem_dst, const tg_tensor_map* map, int c0, int c1,
                                                         tg_u64* bar, unsigned short cta_mask, bool evict_first) {
  if (evict_first) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster."
        "L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5, %6;" ::"r"(tg_smem_addr(smem_dst)),
        "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(tg_smem_addr(bar)), "h"(cta_mask),
        "l"(tg_l2_evict_first())
        : "memory");
    return;
  }
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
      "{%2, %3}], [%4], %5;" ::"r"(tg_smem_addr(smem_dst)),
      "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(tg_smem_addr(bar)), "h"(cta_mask)
      : "memory");
}

__device__ __forceinline__ void tg_tma_load_3d_multicast(void* smem_dst, const tg_tensor_map* map, int c0, int c1,
                                                         int c2, tg_u64* bar, unsigned short cta_mask,
                                                         bool evict_first) {
  if (evict_first) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster."
        "L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], %6, %7;" ::"r"(tg_smem_addr(smem_dst)),
        "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(tg_smem_addr(bar)), "h"(cta_mask),
        "l"(tg_l2_evict_first())
        : "memory");
    return;
  }
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
      "{%2, %3, %4}], [%5], %6;" ::"r"(tg_smem_addr(smem_dst)),
      "l"(reinterpret_cast<tg_u64>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(tg_smem_addr(bar)), "h"(cta_mask)
      : "memory");
}

__device__ __forceinline__ void tg_tma_store_3d(const tg_tensor_map* map, int c0, int c1, int c2, const void* smem_src) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(
                   reinterpret_cast<tg_u64>(map)),
               "r"(c0), "r"(c1), "r"(c2), "r"(tg_smem_addr(smem_src))
               : "memory");
}

// Waits until at most `Pending` of this thread's committed bulk stores still read shared memory.
template <int Pending>
__device__ __forceinline__ void tg_tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}
