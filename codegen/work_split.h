#pragma once
// The persistent kernels' work split (device/work_split.cuh) compiled for the host, so that tests
// and `tilegrid plan` use the kernel's own arithmetic rather than a copy of it.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#error "codegen/work_split.h is the host view; device code includes device/work_split.cuh directly"
#endif
#define __host__
#define __device__
#include "codegen/device/work_split.cuh"
#undef __host__
#undef __device__

#include <cstdint>

#include "scheduler/schedule.h"

namespace tilegrid::codegen {

// What the persistent kernel of schedule `s` computes on its planned grid: the clusters launched,
// the K tiles of a unit, and cluster `cluster`'s share of the work by the kernel's own split.
struct ScheduledSplit {
  int64_t clusters = 0, k_tiles = 0;
  int64_t whole_unit_clusters = 0;  // the clusters whole units go round robin over
  tg_work_split split{};
};

inline ScheduledSplit scheduledSplit(const scheduler::MatmulSchedule& s, int64_t cluster) {
  ScheduledSplit out;
  out.clusters = s.ctas() / (s.params.cluster.m * s.params.cluster.n);
  out.k_tiles = (s.problem.k + s.params.cta_tile.k - 1) / s.params.cta_tile.k;
  out.split = tg_split_work(static_cast<int>(s.workUnits()), static_cast<int>(out.clusters), static_cast<int>(cluster),
                            static_cast<int>(out.k_tiles), s.params.stream_k);
  // The sm_80 kernel walks its units over the whole grid in its own loop (templates/sm80_gemm.cu),
  // not by this split: a balanced grid lost there (H100, 4000^3 TN 422-425 vs 430-436 TFLOP/s).
  out.whole_unit_clusters = s.params.arch == scheduler::Arch::Sm90 ? out.split.dp_stride : out.clusters;
  return out;
}

}  // namespace tilegrid::codegen
