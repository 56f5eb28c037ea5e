#include "tilegrid/scheduler/wave_model.h"

#include <cmath>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/problem.h"
#include "tilegrid/scheduler/work_split.h"

namespace tilegrid::scheduler {

WaveFit fitWaves(const MatmulProblem& problem, int64_t cta_m, int64_t cta_n, int64_t cta_k, int64_t cluster_m,
                 int64_t slots, bool stream_k) {
  TG_INTERNAL_CHECK(cta_m > 0 && cta_n > 0 && cta_k > 0 && cluster_m > 0 && slots > 0)
      << "fitWaves: tile " << cta_m << "x" << cta_n << "x" << cta_k << ", cluster " << cluster_m << ", " << slots
      << " slots";
  constexpr double kStreamKCost = 0.26;
  WaveFit fit;
  fit.units = ceilDiv(ceilDiv(problem.m, cta_m), cluster_m) * ceilDiv(problem.n, cta_n) * problem.batch;
  fit.slots = slots;
  fit.waves = static_cast<double>(fit.units) / static_cast<double>(slots);
  const double padded = static_cast<double>(fit.units) * static_cast<double>(cluster_m * cta_m * cta_n);
  fit.useful = static_cast<double>(problem.m) * static_cast<double>(problem.n) * static_cast<double>(problem.batch) / padded;
  const double whole = std::floor(fit.waves);
  const int64_t rem = fit.units % slots, k_tiles = ceilDiv(problem.k, cta_k);
  // Counts past the kernels' 32 bits (kMaxExtent) are refused later, with the schedule's own message.
  const bool shared = stream_k && fit.units <= kMaxExtent && k_tiles <= kMaxExtent && slots <= kMaxExtent &&
                      planWorkSplit(fit.units, slots, k_tiles, true).sharedUnits() > 0;
  if (rem == 0) {
    fit.busy = 1;
  } else if (shared) {
    fit.busy = fit.waves / (fit.waves + kStreamKCost);
  } else {
    fit.busy = fit.waves / (whole + 1);
  }
  return fit;
}

}  // namespace tilegrid::scheduler
