#pragma once
// Which reads of a kernel go evict-first in L2. An operand whose every tile one CTA loads (A where
// one tile column covers N, B where one tile row or one cluster sharing B's boxes covers M; the dot
// kernel's A where one block covers N, its B where one block covers M) is read once: keeping it in
// L2 helps nothing. Read evict-first, such a stream recycles its own lines instead of pushing out
// what L2 held when the kernel started: the other operand, which every CTA reads again, and lines
// written before the kernel, whose write-back to DRAM would otherwise share the bandwidth with the
// kernel's own reads. That saving is bounded by the L2's size, and a longer stream read evict-first
// loses more than it saves, so the kernels read an operand once evict-first only while it is at
// most kEvictFirstMaxL2s L2 sizes (per batch entry). The kernels decide at launch, from the
// problem's sizes (templates/sm90_gemm.cu, templates/dot_gemm.cu). The limit and what the policy
// buys with the L2 left clean or full of written lines: docs/results/l2_evict_first_ab_h200.txt and
// docs/design.md, *Operands read once*.
#include <cstdint>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

inline constexpr int64_t kEvictFirstMaxL2s = 6;

// The most bytes of an operand read once that a kernel for `device` reads evict-first.
inline int64_t evictFirstMaxBytes(const DeviceSpec& device) { return kEvictFirstMaxL2s * device.l2_bytes; }

}  // namespace tilegrid::scheduler
