#include "tilegrid/scheduler/l2_policy.h"

#include <fmt/format.h>

#include "tilegrid/scheduler/dot_kernel.h"

namespace tilegrid::scheduler {
namespace {

// One operand: read once or again by other CTAs, and how many bytes of it a batch entry holds.
std::string describe(char operand, bool once, int64_t bytes, int64_t limit, bool evict_first) {
  const double mb = static_cast<double>(bytes) / 1e6;
  if (!once) return fmt::format("{}: read again by other CTAs", operand);
  if (!evict_first) return fmt::format("{}: read once, {:.1f} MB over {:.0f} MB", operand, mb, limit / 1e6);
  return fmt::format("{}: read once, {:.1f} MB: evict-first", operand, mb);
}

}  // namespace

ReadOncePolicy readOncePolicy(const MatmulSchedule& s) {
  ReadOncePolicy policy;
  const MatmulProblem p = s.kernelProblem();
  const int64_t limit = kEvictFirstMaxL2s * s.device.l2_bytes;
  bool once_a = false, once_b = false;
  int64_t k_bytes = p.k * bytes(p.a_dtype);
  if (s.params.dot) {
    once_a = ceilDiv(p.n, s.params.dot->cols) == 1;
    once_b = p.m <= s.params.dot->rows;
  } else if (s.params.arch == Arch::Sm90) {
    // TMA reads whole K tiles: the bytes of a row as the kernel reads it.
    k_bytes = s.kTiles() * s.params.cta_tile.k * bytes(p.a_dtype);
    once_a = s.tilesN() == 1;
    once_b = s.tilesM() <= s.params.cluster.m;
  } else {
    policy.why = "sm_80 kernels read with no L2 policy";
    return policy;
  }
  policy.evict_first_a = once_a && p.m * k_bytes <= limit;
  policy.evict_first_b = once_b && p.n * k_bytes <= limit;
  policy.why = describe('A', once_a, p.m * k_bytes, limit, policy.evict_first_a) + "; " +
               describe('B', once_b, p.n * k_bytes, limit, policy.evict_first_b);
  return policy;
}

}  // namespace tilegrid::scheduler
