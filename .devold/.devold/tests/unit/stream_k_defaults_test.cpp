// When stream-K is on by default: every persistent sm_90 problem of 128 rows and columns or more,
// and one with M or N under 128 only where its tiles fill at most half the SMs (then cut in step).
#include <gtest/gtest.h>

#include "tilegrid/scheduler/schedule.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k) { return testing::bf16Problem(m, n, k, Layout::TN); }

TEST(StreamKDefaults, SmallProblemsAreCutOnlyUnderHalfAWave) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  // A problem with M or N under 128 streams its larger operand from DRAM: no stream-K unless asked,
  // or unless its tiles fill at most half the SMs, when every tile is cut into K pieces.
  EXPECT_TRUE(chooseParams(problem(128, 4096, 4096), h100).stream_k);
  EXPECT_FALSE(chooseParams(problem(64, 8192, 8192), h100).stream_k);
  EXPECT_FALSE(chooseParams(problem(8192, 100, 8192), h100).stream_k);
  EXPECT_TRUE(chooseParams(problem(64, 8192, 8192), h100, {.stream_k = true}).stream_k);
  // 1x1x100000 in 64x8x128 tiles (128 deep: 256 would leave SMs idle) is one unit of 782 K tiles,
  // cut in step into 132 pieces of 5 or 6.
  for (const MatmulProblem& small : {problem(64, 64, 65536), problem(1, 1, 100000), problem(4, 64, 32768)}) {
    const MatmulSchedule s = schedule(small, h100);
    EXPECT_TRUE(s.params.stream_k) << small.toString();
    EXPECT_GE(s.workSplit().pieces, 2) << small.toString() << ": " << s.workSplit().describe();
    EXPECT_FALSE(chooseParams(small, h100, {.stream_k = false}).stream_k) << small.toString();
  }
  // 64 units of 16 K tiles (1x4096x4096 in 64x8x256 tiles): two pieces and a hand-over take longer
  // than a whole unit, which stays whole.
  EXPECT_EQ(schedule(problem(1, 4096, 4096), h100).workSplit().pieces, 0);
  // Over half a wave of tiles (96 narrow tiles at 1x6144x4096) nothing is cut.
  EXPECT_FALSE(chooseParams(problem(1, 6144, 4096), h100).stream_k);
}

// Pieces cut in step accumulate their sums at L2 where every unit's sum fits the workspace's
// accumulation area and the caller did not ask for the same bits on every launch; else, from
// kSliceReductionMinPieces pieces on, they add them in slices.
TEST(StreamKDefaults, PiecesAccumulateWhereTheirSumsFitUnlessDeterministic) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const auto reduction = [&](const MatmulProblem& p, TileShape tile, int64_t cluster, bool deterministic) {
    return schedule(p, h100,
                    {.cta_tile = tile, .stream_k = true, .deterministic = deterministic, .cluster_m = cluster})
        .workSplit()
        .reduction;
  };
  // 8 units of 128x128 pairs: 8 x 128 KiB, exactly the area.
  EXPECT_EQ(reduction(problem(512, 512, 16384), {128, 128, 64}, 2, false), SplitReduction::Accumulated);
  EXPECT_EQ(reduction(problem(512, 512, 16384), {128, 128, 64}, 2, true), SplitReduction::InSlices);
  // 8 units of 128x256 pairs: 2 MiB of sums.
  EXPECT_EQ(reduction(problem(512, 1024, 8192), {128, 256, 64}, 2, false), SplitReduction::InSlices);
  // 4 units of 128x256 pairs fit the area (1 MiB), but a 64x256 warpgroup tile holds 128 accumulators
  // a thread: its kernel has no accumulating path.
  EXPECT_EQ(reduction(problem(256, 1024, 16384), {128, 256, 64}, 2, false), SplitReduction::InSlices);
  EXPECT_FALSE(schedule(problem(256, 1024, 16384), h100, {.cta_tile = TileShape{128, 256, 64}, .stream_k = true})
                   .accumulates());
  // The default for 64x64x65536: one 64x64 tile in many pieces.
  const MatmulSchedule s = schedule(problem(64, 64, 65536), h100);
  EXPECT_EQ(s.workSplit().reduction, SplitReduction::Accumulated) << s.workSplit().describe();
  EXPECT_LE(s.workSplit().units * s.accumulatedSumBytes(), kAccumulationBytes);
}

}  // namespace
}  // namespace tilegrid::scheduler
