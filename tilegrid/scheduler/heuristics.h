#pragma once
// The starting heuristics for tiles, stages and grid traversal, per arch. The tunable choices live
// here and, for sm_90's tile shapes, in sm90_tiles.h (the rules) and sm90_tile_ranking.h (the ranking).
#include <optional>
#include <string>
#include <vector>

#include "tilegrid/scheduler/decision_trace.h"
#include "tilegrid/scheduler/params.h"
#include "tilegrid/scheduler/sm90_tile_ranking.h"

namespace tilegrid::scheduler {

// User overrides of the heuristics. Anything set here replaces the heuristic's choice and is
// validated like it.
struct ScheduleOverrides {
  // The kernel family. sm_80 code runs on any device from sm_80 on; sm_90 needs an sm_90 device.
  std::optional<Arch> arch = std::nullopt;
  std::optional<TileShape> cta_tile = std::nullopt;
  // sm_80: the warp tile; sm_90: the consumer warpgroup tile. Its k must equal the CTA tile's.
  std::optional<TileShape> warp_tile = std::nullopt;
  std::optional<int64_t> stages = std::nullopt;
  std::optional<GridMethod> method = std::nullopt;
  std::optional<std::vector<int64_t>> factors = std::nullopt;
  std::optional<GridGroup> group = std::nullopt;
  std::optional<bool> persistent = std::nullopt;
  // sm_90, persistent: share the last wave among the CTAs by K ranges (MatmulParams::stream_k).
  std::optional<bool> stream_k = std::nullopt;
  // Stream-K's sums add up in a fixed order (MatmulParams::deterministic); off by default.
  std::optional<bool> deterministic = std::nullopt;
  // sm_90: CTAs per cluster along M; the cluster's CTAs share (multicast) their B tile.
  std::optional<int64_t> cluster_m = std::nullopt;
  // sm_90: compute C^T = B^T * A^T (MatmulParams::swap_ab); the heuristic decides when unset.
  std::optional<bool> swap_ab = std::nullopt;
  // Read every operand promised less than 16-byte alignment through a padded copy (true) or none
  // (false; sm_80 only, whose narrower copies need no padding); the heuristic decides when unset.
  std::optional<bool> pad = std::nullopt;
  // sm_80: the order of a warp's mma.sync (MatmulParams::mma_order); by B's layout when unset.
  std::optional<MmaOrder> mma_order = std::nullopt;
  // Compile the problem's sizes into the kernel (MatmulParams::specialize_shape); off by default.
  std::optional<bool> specialize_shape = std::nullopt;
  // sm_90: one kernel for every tile width, the launch passing the width (MatmulParams::width_at_launch);
  // by default for the one-wave fit's tiles wherever it applies.
  std::optional<bool> width_at_launch = std::nullopt;
  // sm_90: compile the choices a kernel could read at launch into it (MatmulParams::
  // launch_choices_compiled); by default for short kernels of small problems.
  std::optional<bool> launch_choices_compiled = std::nullopt;
  // sm_90: consumer warpgroups take tiles of their own in turns (MatmulParams::pingpong); off by default.
  std::optional<bool> pingpong = std::nullopt;
  // Run the problem as the dot kernel (MatmulParams::dot, dot_kernel.h), or a tiled one; by default
  // the dot kernel wherever it can run the problem, unless another override describes a tiled kernel.
  std::optional<bool> dot = std::nullopt;

  // Whether any override above describes a tiled kernel (its family, tile, stages, traversal,
  // clusters, consumers or launch choices).
  bool describesTiledKernel() const;
};

// Concurrently resident CTAs the grid model plans a wave for.
int64_t waveCtas(const MatmulParams& params, const MatmulProblem& problem, const DeviceSpec& device);

// Sets params.dot where the dot kernel runs `problem`, over the tiled params chosen for it, and says
// why in `trace`.
void chooseDotKernel(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides,
                     MatmulParams& params, DecisionTrace& trace);

// Heuristic params for `problem` on `device` with `overrides` applied. Validated. Each decision and
// the rule that made it go to `trace` where one is given.
MatmulParams chooseParams(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides = {},
                          DecisionTrace* trace = nullptr);

}  // namespace tilegrid::scheduler
