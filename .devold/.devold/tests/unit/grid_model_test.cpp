// The grid model (tilegrid/scheduler/grid_model.h): grouping saves DRAM reads on large problems, and where
// every order ties, the launch order's tie-break over every one-wave grid of a small domain.
#include <gtest/gtest.h>

#include "tilegrid/scheduler/grid_model.h"
#include "tilegrid/scheduler/params.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k, Layout layout = Layout::TN) {
  return testing::bf16Problem(m, n, k, layout);
}

TEST(GridModel, GroupsLargeProblemsAndIgnoresOrderWhenEverythingFitsInL2) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const MatmulProblem big = problem(8192, 8192, 8192);
  const auto estimates = estimateTraffic(big, 128, 256, 132, h100.l2_bytes);
  const TrafficEstimate best = chooseGridTraversal(big, 128, 256, 132, h100.l2_bytes);
  EXPECT_GT(best.factor, 1);
  double row_major = 0;
  for (const auto& e : estimates) {
    EXPECT_GE(e.dram_bytes, best.dram_bytes);
    if (e.group == GridGroup::M && e.factor == 1) row_major = e.dram_bytes;
  }
  EXPECT_LT(best.dram_bytes, 0.7 * row_major);  // grouping saves at least 30% of the reads
  // 1024^3 bf16: A and B are 4 MiB, far below half the L2: every order costs the same.
  const auto small = estimateTraffic(problem(1024, 1024, 1024), 128, 256, 132, h100.l2_bytes);
  for (const auto& e : small) EXPECT_EQ(e.dram_bytes, small.front().dram_bytes);
}

// One wave: every order reads the same panels, so the launch order walks the grid's short side first
// (group n where tiles_n is at least twice tiles_m, consecutive CTAs sharing a B panel), else group
// m, and factor 1. Over a wave, ties keep group m.
TEST(GridModel, OneWaveWalksTheShortSideFirst) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  int one_wave = 0, grouped_n = 0, over = 0;
  for (int64_t m = 128; m <= 4096; m += 320) {
    for (int64_t n = 128; n <= 8192; n += 448) {
      for (int64_t k : {1024, 8192}) {
        const MatmulProblem p = problem(m, n, k);
        const int64_t tiles_m = ceilDiv(m, int64_t{128}), tiles_n = ceilDiv(n, int64_t{128});
        const auto estimates = estimateTraffic(p, 128, 128, h100.sm_count, h100.l2_bytes);
        const TrafficEstimate best = chooseGridTraversal(p, 128, 128, h100.sm_count, h100.l2_bytes);
        const std::string what = p.toString();
        for (const auto& e : estimates) {
          EXPECT_GE(e.dram_bytes, best.dram_bytes) << what;
          if (e.dram_bytes == best.dram_bytes) {
            EXPECT_GE(e.panel_bytes, best.panel_bytes) << what;
          }
        }
        if (tiles_m * tiles_n <= h100.sm_count) {
          ++one_wave;
          grouped_n += best.group == GridGroup::N;
          EXPECT_EQ(best.group, 2 * tiles_m <= tiles_n ? GridGroup::N : GridGroup::M) << what;
          EXPECT_EQ(best.factor, 1) << what;
          continue;
        }
        ++over;
        for (const auto& e : estimates) {
          const bool ties = e.dram_bytes == best.dram_bytes && e.panel_bytes == best.panel_bytes;
          if (ties && e.group == GridGroup::M) {
            EXPECT_EQ(best.group, GridGroup::M) << what;
          }
        }
      }
    }
  }
  EXPECT_GT(one_wave, 20);
  EXPECT_GT(grouped_n, 5);
  EXPECT_GT(over, 100);
}

}  // namespace
}  // namespace tilegrid::scheduler
