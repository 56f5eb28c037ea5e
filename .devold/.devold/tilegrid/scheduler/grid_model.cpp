#include "tilegrid/scheduler/grid_model.h"

#include <algorithm>

#include "tilegrid/ir/check.h"

namespace tilegrid::scheduler {
std::vector<TrafficEstimate> estimateTraffic(const MatmulProblem& problem, int64_t cta_m, int64_t cta_n,
                                             int64_t wave_ctas, int64_t l2_bytes) {
  TG_INTERNAL_CHECK(cta_m > 0 && cta_n > 0 && wave_ctas > 0) << "bad inputs to the grid model";
  const int64_t tiles_m = ceilDiv(problem.m, cta_m);
  const int64_t tiles_n = ceilDiv(problem.n, cta_n);
  const int64_t tiles = tiles_m * tiles_n;
  const int64_t wave = std::min(wave_ctas, tiles);
  const int64_t waves = ceilDiv(tiles, wave);
  const int64_t a_row = cta_m * problem.k * bytes(problem.a_dtype);  // one tile row's A panel
  const int64_t b_col = cta_n * problem.k * bytes(problem.b_dtype);  // one tile column's B panel
  const double operands = static_cast<double>(problem.m * problem.k * bytes(problem.a_dtype) +
                                              problem.k * problem.n * bytes(problem.b_dtype));
  const bool fits_in_l2 = operands <= static_cast<double>(l2_bytes) / 2;
  std::vector<TrafficEstimate> estimates;
  for (GridGroup group : {GridGroup::M, GridGroup::N}) {
    const int64_t grouped = group == GridGroup::M ? tiles_m : tiles_n;
    const int64_t other = group == GridGroup::M ? tiles_n : tiles_m;
    const int64_t grouped_panel = group == GridGroup::M ? a_row : b_col;
    const int64_t other_panel = group == GridGroup::M ? b_col : a_row;
    for (int64_t f = 1; f <= 32; f *= 2) {
      if (f > 1 && f / 2 >= grouped) break;  // larger factors group the same rows again
      int64_t rows = 0, cols = 0;
      if (wave >= f * other) {
        rows = std::min(grouped, f * ceilDiv(wave, f * other));
        cols = other;
      } else {
        rows = std::min(f, grouped);
        cols = std::min(ceilDiv(wave, rows), other);
      }
      const int64_t panel = rows * grouped_panel + cols * other_panel;
      const double traffic = fits_in_l2 ? operands : static_cast<double>(waves) * static_cast<double>(panel);
      estimates.push_back({group, f, wave, panel, traffic * static_cast<double>(problem.batch)});
    }
  }
  return estimates;
}

TrafficEstimate chooseGridTraversal(const MatmulProblem& problem, int64_t cta_m, int64_t cta_n, int64_t wave_ctas,
                                    int64_t l2_bytes) {
  return leastTraffic(estimateTraffic(problem, cta_m, cta_n, wave_ctas, l2_bytes), problem, cta_m, cta_n, wave_ctas);
}

TrafficEstimate leastTraffic(const std::vector<TrafficEstimate>& estimates, const MatmulProblem& problem, int64_t cta_m,
                             int64_t cta_n, int64_t wave_ctas) {
  TG_INTERNAL_CHECK(!estimates.empty()) << "the grid model weighed no traversal";
  const int64_t tiles_m = ceilDiv(problem.m, cta_m), tiles_n = ceilDiv(problem.n, cta_n);
  const bool one_wave = tiles_m * tiles_n * problem.batch <= wave_ctas;
  const GridGroup preferred = one_wave && 2 * tiles_m <= tiles_n ? GridGroup::N : GridGroup::M;
  return *std::min_element(estimates.begin(), estimates.end(), [&](const TrafficEstimate& a, const TrafficEstimate& b) {
    if (a.dram_bytes != b.dram_bytes) return a.dram_bytes < b.dram_bytes;
    if (a.panel_bytes != b.panel_bytes) return a.panel_bytes < b.panel_bytes;
    if (a.group != b.group) return a.group == preferred;
    return a.factor < b.factor;
  });
}

}  // namespace tilegrid::scheduler
