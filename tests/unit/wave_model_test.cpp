// The wave model's defining properties over a small domain of problems and tiles, and the sm_90
// tile choice it drives.
#include <gtest/gtest.h>

#include <cmath>

#include "scheduler/heuristics.h"
#include "scheduler/wave_model.h"

namespace tilegrid::scheduler {
namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k, Layout layout = Layout::TN) {
  MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.layout = layout;
  return p.validate();
}

TEST(WaveModel, CountsUnitsPaddingAndIdleSlotsExactly) {
  for (int64_t m : {1, 64, 100, 129, 1000}) {
    for (int64_t n : {1, 160, 257, 999}) {
      for (int64_t cluster : {1, 2}) {
        for (int64_t slots : {1, 3, 7}) {
          for (bool stream_k : {false, true}) {
            const MatmulProblem p = problem(m, n, 64);
            const WaveFit fit = fitWaves(p, 64, 160, cluster, slots, stream_k);
            const int64_t units = ceilDiv(ceilDiv(m, 64), cluster) * ceilDiv(n, 160);
            EXPECT_EQ(fit.units, units);
            EXPECT_DOUBLE_EQ(fit.useful, static_cast<double>(m * n) / static_cast<double>(units * cluster * 64 * 160));
            EXPECT_GT(fit.useful, 0);
            EXPECT_LE(fit.useful, 1);
            const int64_t whole = units / slots, rem = units % slots;
            if (rem == 0) {
              EXPECT_EQ(fit.busy, 1);
            } else if (stream_k && 5 * rem <= 4 * slots) {
              EXPECT_DOUBLE_EQ(fit.busy, fit.waves / (fit.waves + 0.26));
            } else {
              // Without stream-K the last wave takes as long as a full one.
              EXPECT_DOUBLE_EQ(fit.busy, static_cast<double>(units) / static_cast<double>((whole + 1) * slots));
            }
            EXPECT_LE(fit.busy, 1);
            EXPECT_DOUBLE_EQ(fit.score(), fit.useful * fit.busy);
          }
        }
      }
    }
  }
}

TEST(WaveModel, PicksThreeConsumersWhereTheyFillTheWaves) {
  // H100 preset, 132 SMs. 4000^3: 128x256 pairs give 256 units, 3.88 waves of 66, 95% real output;
  // 192x160 gives 525 tiles, 3.98 waves of 132, 99% real. Measured 735 vs 771 TFLOP/s (TN).
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  struct Expect {
    int64_t m, n, k;
    Layout layout;
    TileShape cta;
    int64_t cluster_m;
  };
  const TileShape wide{128, 256, 64}, three{192, 160, 64};
  for (const Expect& e : {Expect{4000, 4000, 4000, Layout::TN, three, 1}, Expect{4000, 4000, 8000, Layout::NN, three, 1},
                          // 160 columns of M-major B would get 64-byte atoms.
                          Expect{4000, 4000, 4000, Layout::TT, wide, 2}, Expect{4000, 4000, 4000, Layout::NT, wide, 2},
                          Expect{4096, 4096, 4096, Layout::TN, wide, 2}, Expect{8192, 8192, 8192, Layout::TN, wide, 2},
                          Expect{5000, 3000, 4096, Layout::TN, wide, 2}, Expect{3000, 3000, 3000, Layout::TN, wide, 2},
                          // Less than a wave, or rows not 16-byte aligned: the model is not
                          // calibrated there.
                          Expect{1000, 1000, 1000, Layout::TN, wide, 2}, Expect{4097, 4097, 4096, Layout::TN, wide, 2},
                          Expect{4004, 4004, 4000, Layout::TN, wide, 2}}) {
    const MatmulParams p = chooseParams(problem(e.m, e.n, e.k, e.layout), h100);
    const std::string what = std::to_string(e.m) + "x" + std::to_string(e.n) + "x" + std::to_string(e.k) + " " +
                             toString(e.layout);
    EXPECT_EQ(p.cta_tile, e.cta) << what;
    EXPECT_EQ(p.cluster.m, e.cluster_m) << what;
    EXPECT_EQ(p.mathGroups(), e.cta.m / 64) << what;
  }
  // One CTA per tile: no persistent waves to fill, the default tile. A user's tile pairs CTAs by the
  // usual rule, and a user's cluster wins.
  EXPECT_EQ(chooseParams(problem(4000, 4000, 4000), h100, {.persistent = false}).cta_tile, wide);
  const MatmulParams user = chooseParams(problem(4000, 4000, 4000), h100, {.cta_tile = three});
  EXPECT_EQ(user.cluster.m, 2);
  EXPECT_EQ(chooseParams(problem(4000, 4000, 4000), h100, {.cluster_m = 2}).cluster.m, 2);
}

}  // namespace
}  // namespace tilegrid::scheduler
