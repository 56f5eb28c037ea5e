#pragma once
// The sm_90 tile ranking: the tile shapes a persistent sm_90 kernel may take, each scored by how
// fast it runs on full waves and how well its grid fills the problem's waves, and which orientation
// (C or C^T) fits better. chooseParams (heuristics.h) takes its choice.
#include <optional>
#include <string>
#include <vector>

#include "tilegrid/scheduler/params.h"
#include "tilegrid/scheduler/wave_model.h"

namespace tilegrid::scheduler {

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

// The first ranked shape's throughput on whole waves at the card's power limit, per SM: a kernel's
// modelled TFLOP/s is its tile's score times this times the SM count. Fitted to the suite's runs on
// an H100 (docs/results/suite/h100.json and large-h100.json: the median over the ranked cases of
// measured TFLOP/s / score, 743 on 132 SMs); tests/unit/tile_model_test.cpp holds the model to them.
constexpr double kFullWaveTflopsPerSm = 5.63;

// The modelled time of `problem` (flops over the modelled throughput of a tile of `score`), in
// microseconds.
double modelledSm90Us(const MatmulProblem& problem, const DeviceSpec& device, double score);

// The ranking, in order; empty where the heuristic does not rank (problems under a wave of the first
// shape that no one-wave shape fills, small M or N, operand rows not 16-byte aligned, or C's where
// the operands are read in place). Each shape says why the heuristic may not pick it.
// `swapped`: `problem` is a swapOperands one, whose C the kernel stores transposed.
// `operands_padded`: A and B are read through padded copies (problem describes the copies).
std::vector<RankedTile> rankSm90Tiles(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                      bool swapped = false, bool operands_padded = false);

// The ranking of `problem` as an sm_90 kernel reads it: misaligned operands through their padded
// copies (operand_padding.h: readThroughPadding), rows at the copies' pitch.
std::vector<RankedTile> rankSm90TilesAsRead(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
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

}  // namespace tilegrid::scheduler
