#pragma once
// Choosing the grid traversal from a model of L2 reuse.
#include <cstdint>
#include <vector>

#include "tilegrid/scheduler/grid_traversal.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

struct TrafficEstimate {
  GridGroup group = GridGroup::M;
  int64_t factor = 1;
  int64_t wave_ctas = 0;        // CTAs that run at once
  int64_t panel_bytes = 0;      // A and B bytes one wave touches
  double dram_bytes = 0;        // the whole problem's estimated DRAM reads
};

// The model. W CTAs run at once (a wave) and walk the tiles_m x tiles_n grid in launch order. With
// grouping factor f along m, f tile rows form a megarow that is walked across all tiles_n columns:
//   if W >= f * tiles_n:  rows = min(tiles_m, f * ceilDiv(W, f * tiles_n)),  cols = tiles_n
//   else:                 rows = min(f, tiles_m),                            cols = ceilDiv(W, rows)
//   panel(f) = rows * cta_m * K * bytes(A) + cols * cta_n * K * bytes(B)
// The CTAs of a wave move through K roughly in step, so each k-slice of a panel comes from DRAM once
// per wave and is reused from L2 by the other CTAs that need it:
//   traffic(f) = waves * panel(f),   waves = ceilDiv(tiles, W)
// unless A and B together fit in half the L2 (the H100's L2 is two halves that may both hold a
// line), where every order reads them once: traffic = bytes(A) + bytes(B). Grouping along n swaps
// the roles of m and n. The chosen (group, f) minimises traffic over f in {1, 2, 4, ..., 32}; ties
// go to the smaller panel, then to group m, then to the smaller factor; but where all tiles fit in
// one wave and tiles_n is at least twice tiles_m, to group n. In one wave every order ties on
// traffic, yet the order counts: launched walking the short side of the grid first, consecutive
// CTAs share the panel the fewest CTAs read; on grids closer to square the order stops mattering
// (docs/findings.md, *In one wave, walk the short side of the grid first*).
std::vector<TrafficEstimate> estimateTraffic(const MatmulProblem& problem, int64_t cta_m, int64_t cta_n,
                                             int64_t wave_ctas, int64_t l2_bytes);
TrafficEstimate chooseGridTraversal(const MatmulProblem& problem, int64_t cta_m, int64_t cta_n, int64_t wave_ctas,
                                    int64_t l2_bytes);
// The model's choice among `estimates` (estimateTraffic's for the same problem, tile and wave).
TrafficEstimate leastTraffic(const std::vector<TrafficEstimate>& estimates, const MatmulProblem& problem, int64_t cta_m,
                             int64_t cta_n, int64_t wave_ctas);

}  // namespace tilegrid::scheduler
