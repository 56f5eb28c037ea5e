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
  for (const MatmulProblem& small : {problem(64, 64, 65536), problem(1, 1, 100000), problem(1, 4096, 4096)}) {
    const MatmulSchedule s = schedule(small, h100);
    EXPECT_TRUE(s.params.stream_k) << small.toString();
    EXPECT_GE(s.workSplit().pieces, 2) << small.toString() << ": " << s.workSplit().describe();
    EXPECT_FALSE(chooseParams(small, h100, {.stream_k = false}).stream_k) << small.toString();
  }
  // Over half a wave of tiles (96 of 64x64 at 1x6144x4096) nothing is cut.
  EXPECT_FALSE(chooseParams(problem(1, 6144, 4096), h100).stream_k);
}

}  // namespace
}  // namespace tilegrid::scheduler
