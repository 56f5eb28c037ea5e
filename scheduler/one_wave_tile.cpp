#include "scheduler/one_wave_tile.h"

#include "scheduler/tile_eligibility.h"

namespace tilegrid::scheduler {

std::optional<OneWaveTile> oneWaveTileSm90(const MatmulProblem& problem, const DeviceSpec& device) {
  constexpr int64_t kRows = 128, kNarrowest = 112, kWidest = 256;
  std::optional<OneWaveTile> best;
  for (bool swap : {false, true}) {
    const MatmulProblem kernel = swap ? swapOperands(problem) : problem;
    if (!allRowsAligned(kernel) || !rowsOnSectors(kernel)) continue;
    const int64_t rows = ceilDiv(kernel.m, kRows) * kernel.batch;
    for (int64_t width = kNarrowest; width <= kWidest; width += 8) {
      const int64_t tiles = rows * ceilDiv(kernel.n, width);
      if (tiles > device.sm_count || 10 * tiles < 9 * device.sm_count) continue;
      if (!widestAtoms(kernel, TileShape{kRows, width, 64})) continue;
      const double useful = static_cast<double>(kernel.m) * static_cast<double>(kernel.n * kernel.batch) /
                            static_cast<double>(tiles * kRows * width);
      if (!best || useful > best->useful + 1e-9) best = OneWaveTile{swap, width, tiles, useful};
    }
  }
  return best;
}

bool fillsOneWave(const MatmulProblem& problem, const TileShape& cta, const DeviceSpec& device, double useful) {
  const int64_t tiles = ceilDiv(problem.m, cta.m) * ceilDiv(problem.n, cta.n) * problem.batch;
  const double real = static_cast<double>(problem.m) * static_cast<double>(problem.n * problem.batch) /
                      static_cast<double>(tiles * cta.m * cta.n);
  return tiles <= device.sm_count && 10 * tiles >= 9 * device.sm_count && real >= useful - 1e-9;
}

}  // namespace tilegrid::scheduler
