#pragma once
// sm_90: whether the consumer warpgroups share each tile (cooperative) or take whole tiles in turns
// (ping-pong, MatmulParams::pingpong), from a model of what a fused epilogue costs each.
//
// A cooperative kernel runs its epilogue after the main loop with the tensor cores idle: the epilogue's
// time adds to the main loop's. Modelled as a share e of the main loop's time: its work per output
// element over the main loop's, which is proportional to K,
//   e = (kAuxByteCost * aux bytes written + kMatrixByteCost * c and residual bytes read
//        + kSpecialFunctionCost * special functions + kBiasCost * [reads a bias]) / K.
// A ping-pong kernel stores one warpgroup's tile while the other multiplies, so it pays only
// kPingPongEpilogueShare of that share, but its main loop runs kPingPongMainLoopLoss slower: its
// 128x128 tiles load more operand bytes per multiply than the cooperative 128x256 pairs. Modelled time
// of cooperative over ping-pong:
//   gain = (1 + e) / ((1 + kPingPongMainLoopLoss) * (1 + kPingPongEpilogueShare * e)),
// and ping-pong where gain > 1: plain GEMMs and light epilogues (bias, one activation over a long K)
// stay cooperative; auxiliary outputs and matrices read in the epilogue over short K turn ping-pong.
// The constants are fitted to docs/results/consumers_h100.csv (bench/suites/consumers.json): the
// costs by least squares on the cooperative kernel's measured epilogue overhead, the loss and share
// as medians; tests/unit/consumer_model_test.cpp refits them and holds the choices against it.
#include <string>

#include "tilegrid/scheduler/params.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

// Main-loop time per output element, in units of a K step, that each epilogue feature adds.
inline constexpr double kAuxByteCost = 294;
inline constexpr double kMatrixByteCost = 235;
inline constexpr double kSpecialFunctionCost = 101;
inline constexpr double kBiasCost = 65;
// How much slower ping-pong's main loop runs than the cooperative kernel's, and the share of the
// cooperative epilogue's time it still pays.
inline constexpr double kPingPongMainLoopLoss = 0.087;
inline constexpr double kPingPongEpilogueShare = 0.52;
// The tile ping-pong kernels take: each warpgroup holds 128x128 fp32 accumulators, two blocks of 64
// rows, as many as a 64x256 warpgroup tile of the cooperative 128x256.
inline constexpr TileShape kPingPongTile{128, 128, 64};

// The model's features of a problem's epilogue, per output element.
struct EpilogueFeatures {
  double aux_bytes = 0, matrix_bytes = 0, special_functions = 0, bias = 0;
};
EpilogueFeatures epilogueFeatures(const MatmulProblem& problem);

struct ConsumerChoice {
  bool pingpong = false;
  double epilogue_share = 0;  // e: the cooperative epilogue's time over its main loop's
  double gain = 1;            // modelled cooperative time over ping-pong time
  std::string rule;
};

// The model's choice for `problem` (validated). Only for problems whose default sm_90 schedule would
// walk at least one kPingPongTile a CTA: the caller checks that.
ConsumerChoice chooseConsumersSm90(const MatmulProblem& problem);

}  // namespace tilegrid::scheduler
