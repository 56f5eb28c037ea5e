#include "tilegrid/scheduler/one_wave_tile.h"

#include "tilegrid/scheduler/sm90_tiles.h"
#include "tilegrid/scheduler/tile_eligibility.h"

namespace tilegrid::scheduler {
namespace {

// How cta tiles cover `problem`: their count, and the share of their padded grid that is output.
struct Cover {
  int64_t tiles = 0;
  double useful = 0;
  bool fillsOneWave(const DeviceSpec& device) const {
    return tiles <= device.sm_count && 10 * tiles >= 9 * device.sm_count;
  }
};

Cover cover(const MatmulProblem& problem, int64_t cta_m, int64_t cta_n) {
  const int64_t tiles = ceilDiv(problem.m, cta_m) * ceilDiv(problem.n, cta_n) * problem.batch;
  return {tiles, static_cast<double>(problem.m) * static_cast<double>(problem.n * problem.batch) /
                     static_cast<double>(tiles * cta_m * cta_n)};
}

}  // namespace

std::optional<OneWaveTile> oneWaveTileSm90(const MatmulProblem& problem, const DeviceSpec& device) {
  constexpr int64_t kRows = 128;
  std::optional<OneWaveTile> best;
  for (bool swap : {false, true}) {
    const MatmulProblem kernel = swap ? swapOperands(problem) : problem;
    if (!allRowsAligned(kernel) || !rowsOnSectors(kernel)) continue;
    for (int64_t width = kOneWaveFitWidths.narrowest; width <= kOneWaveFitWidths.widest; width += kLaunchWidthStep) {
      const Cover c = cover(kernel, kRows, width);
      if (!c.fillsOneWave(device) || !widestAtoms(kernel, TileShape{kRows, width, 64})) continue;
      if (!best || c.useful > best->useful + 1e-9) best = OneWaveTile{swap, width, c.tiles, c.useful};
    }
  }
  return best;
}

bool fillsOneWave(const MatmulProblem& problem, const TileShape& cta, const DeviceSpec& device, double useful) {
  const Cover c = cover(problem, cta.m, cta.n);
  return c.fillsOneWave(device) && c.useful >= useful - 1e-9;
}

}  // namespace tilegrid::scheduler
