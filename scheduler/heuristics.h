#pragma once
// The starting heuristics for tiles, stages and grid traversal, per arch. All tunable choices live
// here so that GPU tuning (issues #5-#7) changes one file.
#include <optional>
#include <string>
#include <vector>

#include "scheduler/params.h"
#include "scheduler/wave_model.h"

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
  // sm_90: CTAs per cluster along M; the cluster's CTAs share (multicast) their B tile.
  std::optional<int64_t> cluster_m = std::nullopt;
  // sm_90: compute C^T = B^T * A^T (MatmulParams::swap_ab); the heuristic decides when unset.
  std::optional<bool> swap_ab = std::nullopt;
  // Read every operand promised less than 16-byte alignment through a padded copy (true) or none
  // (false; sm_80 only, whose narrower copies need no padding); the heuristic decides when unset.
  std::optional<bool> pad = std::nullopt;
  // sm_80: the order of a warp's mma.sync (MatmulParams::mma_order); by B's layout when unset.
  std::optional<MmaOrder> mma_order = std::nullopt;
};

// sm_90, persistent: a tile shape the heuristic ranks, with its speed on full waves relative to
// the first, its fit to the problem, whether it may be chosen (false where an operand tile would get
// narrower than 128-byte swizzle atoms) and whether it was.
struct RankedTile {
  TileShape cta;
  int64_t cluster_m = 1;
  int64_t consumer_rows = 64;  // rows a consumer warpgroup takes: 64, or 128 in two wgmma blocks
  double speed = 1;
  WaveFit fit;
  std::string not_eligible;  // why the heuristic may not pick it; empty when it may
  bool chosen = false;
  bool eligible() const { return not_eligible.empty(); }
  double score() const { return speed * fit.score(); }
};

// The ranking, in order; empty where the heuristic does not rank (problems under a wave of the first
// shape that no one-wave shape fills, small M or N, rows not 16-byte aligned). Each shape says why
// the heuristic may not pick it.
// `swapped`: `problem` is a swapOperands one, whose C the kernel stores transposed.
std::vector<RankedTile> rankSm90Tiles(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                      bool swapped = false);

// The ranking's choice, if it ranks.
std::optional<RankedTile> chosenSm90Tile(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                         bool swapped = false);

// sm_90, persistent: the ranking's choice for the problem (computing C) and for swapOperands(problem)
// (computing C^T), and whether the second scores kMargin times the first (false where either has
// no ranking).
struct OrientationRanking {
  static constexpr double kMargin = 1.01;
  std::optional<RankedTile> straight, swapped;
  bool narrow_n = false;  // N of 64 or less under a larger M: swapped whatever the ranking says
  bool swap = false;
};
OrientationRanking rankOrientations(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k);

// Concurrently resident CTAs the grid model plans a wave for.
int64_t waveCtas(const MatmulParams& params, const MatmulProblem& problem, const DeviceSpec& device);

// Heuristic params for `problem` on `device` with `overrides` applied. Validated.
MatmulParams chooseParams(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides = {});

}  // namespace tilegrid::scheduler
