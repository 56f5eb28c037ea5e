#pragma once
// Which operands a kernel reads evict-first in L2. An operand whose every tile one CTA loads is read
// once, and keeping it in L2 helps nothing:
//   - a tiled kernel's A where one tile column covers N, its B where one tile row, or one cluster
//     whose CTAs share B's boxes by multicast, covers M (sm_90: TMA loads);
//   - a dot kernel's A where one block covers N, its B where one block covers M.
// Read evict-first, such a stream recycles its own lines instead of pushing out what L2 held when
// the kernel started: the other operand, which every CTA reads again, and lines written before the
// kernel, whose write-back to DRAM would otherwise share the bandwidth with the kernel's own reads.
// That saving is bounded by the L2's size, and a longer stream read evict-first loses more than it
// saves, so an operand read once goes evict-first only while it is at most kEvictFirstMaxL2s L2
// sizes (per batch entry). sm_80 tiled kernels (cp.async) read with no policy.
//
// Decided on the host for each problem and passed at launch (tg_problem::evict_first_a/b), so one
// compiled kernel serves problems either way; `plan` prints the decision. The limit, and what the
// policy buys with the L2 left clean or full of written lines: docs/results/l2_evict_first_ab_h200.txt
// and docs/design.md, *Operands read once*.
#include <cstdint>
#include <string>

#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::scheduler {

inline constexpr int64_t kEvictFirstMaxL2s = 6;

struct ReadOncePolicy {
  bool evict_first_a = false, evict_first_b = false;  // the kernel problem's A and B
  std::string why;  // how each operand is read, for plan
};

// The policy of `s`'s kernel for its problem.
ReadOncePolicy readOncePolicy(const MatmulSchedule& s);

}  // namespace tilegrid::scheduler
