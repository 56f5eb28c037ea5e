// The one-wave tile width (tilegrid/scheduler/one_wave_tile.h): over every problem of a small domain, a width
// it returns fills 90-100% of the SMs, keeps 128-byte swizzle atoms, and pads the grid least among
// the widths and orientations that do; where it returns none, no width fills a wave. The heuristic
// takes the fit unless its own tile already fills the wave with at most 5% more padding.
#include <gtest/gtest.h>

#include <cmath>

#include "tilegrid/scheduler/heuristics.h"
#include "tilegrid/scheduler/one_wave_tile.h"
#include "tilegrid/scheduler/tile_eligibility.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k, Layout layout = Layout::TN) {
  return testing::bf16Problem(m, n, k, layout);
}

// Every (orientation, width) that fills one wave, with the share of its padded grid that is output.
std::vector<OneWaveTile> allFits(const MatmulProblem& p, const DeviceSpec& device) {
  std::vector<OneWaveTile> fits;
  for (bool swap : {false, true}) {
    const MatmulProblem kernel = swap ? swapOperands(p) : p;
    for (int64_t width = 112; width <= 256; width += 8) {
      const int64_t tiles = ceilDiv(kernel.m, int64_t{128}) * ceilDiv(kernel.n, width);
      const bool fills = tiles <= device.sm_count && static_cast<double>(tiles) >= 0.9 * device.sm_count;
      if (!fills || !allRowsAligned(kernel) || !rowsOnSectors(kernel) || !widestAtoms(kernel, {128, width, 64})) continue;
      fits.push_back({swap, width, tiles, static_cast<double>(p.m * p.n) / static_cast<double>(tiles * 128 * width)});
    }
  }
  return fits;
}

TEST(OneWaveTile, FillsOneWaveWithTheLeastPadding) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  int found = 0, swapped = 0, none = 0;
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    for (int64_t m = 256; m <= 3072; m += 96) {
      for (int64_t n = 256; n <= 3072; n += 136) {
        for (int64_t k : {1024, 1000}) {
          const MatmulProblem p = problem(m, n, k, layout);
          const std::string what = p.toString();
          const std::optional<OneWaveTile> fit = oneWaveTileSm90(p, h100);
          const std::vector<OneWaveTile> fits = allFits(p, h100);
          if (!fit) {
            EXPECT_TRUE(fits.empty()) << what;
            ++none;
            continue;
          }
          ++found;
          swapped += fit->swap_ab;
          EXPECT_LE(fit->tiles, h100.sm_count) << what;
          EXPECT_GE(10 * fit->tiles, 9 * h100.sm_count) << what;
          EXPECT_EQ(fit->width % 8, 0) << what;
          const MatmulProblem kernel = fit->swap_ab ? swapOperands(p) : p;
          EXPECT_EQ(fit->tiles, ceilDiv(kernel.m, int64_t{128}) * ceilDiv(kernel.n, fit->width)) << what;
          EXPECT_TRUE(widestAtoms(kernel, {128, fit->width, 64})) << what;
          for (const OneWaveTile& other : fits) EXPECT_LE(other.useful, fit->useful + 1e-9) << what;
        }
      }
    }
  }
  EXPECT_GT(found, 100);
  EXPECT_GT(swapped, 20);
  EXPECT_GT(none, 100);
}

TEST(OneWaveTile, MeasuredShapes) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  // 1536^3: 12 x 11 tiles of 128x144; 640x2560 computing C^T: 20 x 6 of 128x112.
  const auto square = oneWaveTileSm90(problem(1536, 1536, 1536, Layout::TN), h100);
  ASSERT_TRUE(square);
  EXPECT_FALSE(square->swap_ab);
  EXPECT_EQ(square->width, 144);
  EXPECT_EQ(square->tiles, 132);
  const auto skinny = oneWaveTileSm90(problem(640, 2560, 8192, Layout::TN), h100);
  ASSERT_TRUE(skinny);
  EXPECT_TRUE(skinny->swap_ab);
  EXPECT_EQ(skinny->width, 112);
  EXPECT_EQ(skinny->tiles, 120);
  // An N-major B (NT) keeps widths of whole 128-byte atoms, which do not fill 1536^3's wave (NT: 316
  // vs 563 TFLOP/s for 128x144 at 1536x1536x4096); M-major A with K-major B (NN) takes 128x144 (456
  // vs 378 at 1536^3). None for rows off 16-byte boundaries, or for 4096^3's 512 tiles of any width.
  EXPECT_FALSE(oneWaveTileSm90(problem(1536, 1536, 1536, Layout::NT), h100));
  const auto nn = oneWaveTileSm90(problem(1536, 1536, 1536, Layout::NN), h100);
  ASSERT_TRUE(nn);
  EXPECT_EQ(nn->width, 144);
  EXPECT_FALSE(oneWaveTileSm90(problem(640, 2560, 4097, Layout::TN), h100));
  EXPECT_FALSE(oneWaveTileSm90(problem(4096, 4096, 4096, Layout::TN), h100));
}

// Over M, N above 128: the default schedule is the fit (128xW alone, its orientation), or a tile
// (alone or in pairs) that already fills 90-100% of the SMs once with at most 5% more padding.
TEST(OneWaveTile, TheHeuristicTakesTheFitUnlessItsTileFillsTheWaveAsWell) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  int fitted = 0, kept = 0;
  for (Layout layout : {Layout::TN, Layout::NN}) {
    for (int64_t m = 256; m <= 4096; m += 384) {
      for (int64_t n = 256; n <= 8192; n += 640) {
        const MatmulProblem p = problem(m, n, 4096, layout);
        const std::optional<OneWaveTile> fit = oneWaveTileSm90(p, h100);
        if (!fit) continue;
        const MatmulParams params = chooseParams(p, h100);
        const std::string what = p.toString();
        if (params.swap_ab == fit->swap_ab && params.cta_tile == TileShape{128, fit->width, 64} &&
            params.cluster.m == 1) {
          ++fitted;
          continue;
        }
        ++kept;
        EXPECT_TRUE(fillsOneWave(params.kernelProblem(p), params.cta_tile, h100, fit->useful - 0.05)) << what;
      }
    }
  }
  EXPECT_GT(fitted, 10);
  EXPECT_GT(kept, 3);
  // Measured (TN, TFLOP/s, fitted vs before): 1280x2048x4096 computing C^T in 16 x 8 tiles of
  // 128x160, 638 vs 491 for 128x256 pairs; 640x4096x8192 the same, 699 vs 441 for 192x128 (83% real).
  // 2048x1536x4096 keeps 192x128 (11 x 12, 97% real): 657 vs 634 for 128x192.
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1280, 2048, 4096}, {640, 4096, 8192}}) {
    const MatmulParams fitted_params = chooseParams(problem(m, n, k), h100);
    EXPECT_EQ(fitted_params.cta_tile, (TileShape{128, 160, 64}));
    EXPECT_TRUE(fitted_params.swap_ab);
    EXPECT_EQ(fitted_params.cluster.m, 1);
  }
  EXPECT_EQ(chooseParams(problem(2048, 1536, 4096), h100).cta_tile, (TileShape{192, 128, 64}));
  EXPECT_TRUE(fillsOneWave(problem(2048, 1536, 4096), {192, 128, 64}, h100, 0.95));
  EXPECT_FALSE(fillsOneWave(problem(2048, 1536, 4096), {192, 128, 64}, h100, 0.98));
  EXPECT_FALSE(fillsOneWave(problem(640, 4096, 4096), {192, 128, 64}, h100, 0.95));  // 83% real
  EXPECT_FALSE(fillsOneWave(problem(4096, 4096, 4096), {128, 256, 64}, h100, 0.5));  // 512 tiles
}

}  // namespace
}  // namespace tilegrid::scheduler

namespace tilegrid::scheduler {
namespace {

// 64-row tiles alone over a K-major B are trimmed to the problem's width: over every N from 65 to
// 1024 at M = 4096 TN (64 tile rows; at N = 129..256 their two columns fill most of a wave and run
// alone), wherever 64-row tiles run alone the width is a multiple of 8 from 64 to 128, covers N in
// as many tiles as 128 columns would, and 8 columns less would need another tile (or go under 64).
TEST(TrimmedNarrowTile, CoversNInTheFewestTilesWithTheNarrowestWidth) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  int trimmed = 0;
  for (int64_t n = 65; n <= 1024; ++n) {
    const MatmulParams p = chooseParams(problem(4096, n, 4096), h100);
    if (p.cta_tile.m != 64 || p.cluster.m != 1 || p.swap_ab) continue;
    ASSERT_LE(p.cta_tile.n, 128) << n;
    ASSERT_EQ(p.cta_tile.n % 8, 0) << n;
    EXPECT_EQ(ceilDiv(n, p.cta_tile.n), ceilDiv(n, int64_t{128})) << n << ": " << p.cta_tile.toString();
    EXPECT_TRUE(p.cta_tile.n == 64 || ceilDiv(n, p.cta_tile.n - 8) > ceilDiv(n, p.cta_tile.n)) << n << ": " << p.cta_tile.toString();
    // Trimmed tiles share the kernel of widths 64 to 128; a tile of the full width keeps its own.
    EXPECT_EQ(p.width_at_launch, p.cta_tile.n < 128) << n << ": " << p.toString();
    if (p.width_at_launch) {
      EXPECT_TRUE(p.narrowest_width == 64 && p.widest_width == 128) << n << ": " << p.toString();
    }
    trimmed += p.cta_tile.n < 128;
  }
  EXPECT_GE(trimmed, 100);  // N = 129..256: two columns of 72 to 128
  // NT: B is N-major, and a width that is not a multiple of 64 would narrow its swizzle atoms.
  const MatmulParams nt = chooseParams(problem(4096, 200, 4096, Layout::NT), h100);
  EXPECT_EQ(nt.cta_tile.n % 64, 0) << nt.toString();
  EXPECT_FALSE(nt.width_at_launch);
}

}  // namespace
}  // namespace tilegrid::scheduler
