// Which operands a kernel reads evict-first in L2 (scheduler/l2_policy.h): the decode weight that
// one tile column reads, neither operand of a square problem, both of a problem of one tile, none
// past the size limit or on sm_80; the trace and the launch argument say the same.
#include <gtest/gtest.h>

#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/scheduler/l2_policy.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

using testing::bf16Problem;

const DeviceSpec kH100 = DeviceSpec::preset("sm_90");

struct Expected {
  int64_t m, n, k;
  Layout layout;
  bool a, b;  // the kernel problem's
  const char* why;
};

TEST(L2Policy, OperandsThatOneCtaReadsAreReadEvictFirstWithinTheLimit) {
  const std::vector<Expected> cases = {
      // Decode: the kernel computes C^T, its A is the weight, read by one tile column (or one block).
      {1, 4096, 4096, Layout::TN, true, false, "one row: the weight once, the activation by every block"},
      {16, 4096, 4096, Layout::TN, true, false, "16 rows: the weight's tiles once"},
      {16, 6144, 4096, Layout::NT, true, false, "the same, NT"},
      // Past six L2 sizes (940 MB): no policy.
      {1, 57344, 8192, Layout::TN, false, false, "a 940 MB weight"},
      {4096, 4096, 4096, Layout::TN, false, false, "every tile row and column has several tiles"},
      {128, 128, 65536, Layout::TN, true, true, "one tile: both once"},
      {16384, 256, 4096, Layout::TN, true, false, "one tile column reads A"},
  };
  for (const Expected& e : cases) {
    const MatmulSchedule s = schedule(bf16Problem(e.m, e.n, e.k, e.layout), kH100);
    const ReadOncePolicy policy = readOncePolicy(s);
    EXPECT_EQ(policy.evict_first_a, e.a) << e.why << ": " << s.problem.toString() << " " << policy.why;
    EXPECT_EQ(policy.evict_first_b, e.b) << e.why << ": " << s.problem.toString() << " " << policy.why;
    // What the launch passes and what plan prints are the same decision.
    const tg_problem args = codegen::problemArgs(s, 1);
    EXPECT_EQ(args.evict_first_a, e.a ? 1 : 0) << e.why;
    EXPECT_EQ(args.evict_first_b, e.b ? 1 : 0) << e.why;
    ASSERT_FALSE(s.decisions.empty());
    EXPECT_EQ(s.decisions.back().what, "l2 reads");
    EXPECT_NE(s.decisions.back().rule.find(policy.why), std::string::npos);
  }
}

// Over a domain of shapes: an operand goes evict-first only where no other tile reads its rows (one
// tile, or one block, along the other side; B also where one cluster shares its boxes) and it is
// within six L2 sizes; sm_80 tiled kernels never.
TEST(L2Policy, NoOperandThatAnotherTileReadsGoesEvictFirst) {
  for (const char* arch : {"sm_90", "sm_80"}) {
    const DeviceSpec device = DeviceSpec::preset(arch);
    for (int64_t m : {1, 2, 8, 64, 200, 1024, 5000}) {
      for (int64_t n : {1, 8, 64, 256, 3000, 30000}) {
        for (int64_t k : {64, 4096, 20000}) {
          const MatmulSchedule s = schedule(bf16Problem(m, n, k, Layout::TN), device);
          const ReadOncePolicy policy = readOncePolicy(s);
          const MatmulProblem p = s.kernelProblem();
          const int64_t limit = kEvictFirstMaxL2s * device.l2_bytes;
          int64_t readers_a = 0, readers_b = 0;  // tiles (blocks) along the other side reading a row
          if (s.params.dot) {
            readers_a = ceilDiv(p.n, s.params.dot->cols);
            readers_b = ceilDiv(p.m, s.params.dot->rows);
          } else {
            readers_a = ceilDiv(p.n, s.params.cta_tile.n);
            readers_b = ceilDiv(ceilDiv(p.m, s.params.cta_tile.m), s.params.cluster.m);
          }
          const bool tiled_sm80 = !s.params.dot && s.params.arch == Arch::Sm80;
          const int64_t row_bytes = (s.params.dot ? p.k : s.kTiles() * s.params.cta_tile.k) * 2;
          EXPECT_EQ(policy.evict_first_a, !tiled_sm80 && readers_a == 1 && p.m * row_bytes <= limit)
              << s.problem.toString() << " on " << arch << ": " << policy.why;
          EXPECT_EQ(policy.evict_first_b, !tiled_sm80 && readers_b == 1 && p.n * row_bytes <= limit)
              << s.problem.toString() << " on " << arch << ": " << policy.why;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tilegrid::scheduler
