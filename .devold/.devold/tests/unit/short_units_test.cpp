// The short-unit tile rule (chooseSmallTileSm90): a wave of 128x256 tiles alone whose units are at
// most 8 K tiles, over K-major operands on 32-byte sectors, takes 128x128 tiles alone (two a CTA), and
// the one-wave fit leaves them be. Each side of each condition's boundary, on the H100 preset.
#include <gtest/gtest.h>

#include <algorithm>

#include "tilegrid/scheduler/schedule.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

const DeviceSpec kH100 = DeviceSpec::preset("sm_90");

MatmulProblem problem(int64_t m, int64_t n, int64_t k, int64_t batch = 1, Layout layout = Layout::TN) {
  MatmulProblem p = testing::bf16Problem(m, n, k, layout);
  p.batch = batch;
  return p.validate();
}

bool twoSquaresACta(const MatmulSchedule& s) {
  return s.params.cta_tile.m == 128 && s.params.cta_tile.n == 128 && s.params.cluster.m == 1 && !s.params.swap_ab;
}

std::string tileRule(const MatmulSchedule& s) {
  const auto tile = std::find_if(s.decisions.begin(), s.decisions.end(), [](const Decision& d) { return d.what == "tile"; });
  return tile == s.decisions.end() ? "" : tile->rule;
}

TEST(ShortUnits, AWaveOfShortUnitsTakesTwoSquareTilesACta) {
  for (const MatmulProblem& p : {problem(2048, 2048, 64), problem(2048, 2048, 512), problem(256, 256, 128, 64),
                                 problem(512, 512, 256, 16), problem(4096, 1024, 320), problem(1536, 2560, 64)}) {
    const MatmulSchedule s = schedule(p, kH100);
    EXPECT_TRUE(twoSquaresACta(s)) << p.toString() << ": " << s.params.toString();
    EXPECT_NE(tileRule(s).find("units of 8 K tiles or fewer"), std::string::npos) << p.toString() << ": " << tileRule(s);
    // One compiled width: the one-wave fit's run of widths does not take these tiles over.
    EXPECT_EQ(s.params.compiledTile().n, 128) << p.toString();
  }
}

TEST(ShortUnits, EachConditionHasItsBoundary) {
  // Longer units (9 K tiles), other layouts, rows off 32-byte sectors, under 2/3 of a wave, over a wave.
  MatmulProblem off_sectors = problem(2048, 2048, 256);
  off_sectors.lda = 264;  // 528-byte rows: 16-byte aligned, off 32-byte sectors
  for (const MatmulProblem& p :
       {problem(2048, 2048, 576), problem(2048, 2048, 256, 1, Layout::NT), problem(2048, 2048, 256, 1, Layout::NN),
        problem(2048, 2048, 256, 1, Layout::TT), off_sectors.validate(), problem(1024, 1024, 256, 2),
        problem(4096, 4096, 256)}) {
    const MatmulSchedule s = schedule(p, kH100);
    EXPECT_EQ(tileRule(s).find("units of 8 K tiles or fewer"), std::string::npos) << p.toString() << ": " << tileRule(s);
  }
}

}  // namespace
}  // namespace tilegrid::scheduler
