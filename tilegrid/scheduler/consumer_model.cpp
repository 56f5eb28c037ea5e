#include "tilegrid/scheduler/consumer_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tilegrid/scheduler/epilogue_plan.h"

namespace tilegrid::scheduler {

EpilogueFeatures epilogueFeatures(const MatmulProblem& problem) {
  EpilogueFeatures f;
  f.output_bytes = static_cast<double>(bytes(problem.out_dtype));
  for (const EpilogueOperandUse& o : planEpilogue(problem).operands) {
    if (o.written) {
      (auxFitsSlab(problem) ? f.aux_by_tma_bytes : f.aux_bytes) += o.bytes_per_output;
    } else if (o.name == "c" || o.name == "residual") {
      (o.name == "c" && cFitsSlab(problem) ? f.matrix_by_tma_bytes : f.matrix_bytes) += o.bytes_per_output;
    } else {
      f.bias = 1;  // a vector: its bytes per output are negligible, its loads are not
    }
  }
  const std::vector<bool> live = problem.epilogue.live();
  const auto& nodes = problem.epilogue.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    switch (nodes[i].op) {
      case ir::EpOp::Gelu:
      case ir::EpOp::GeluTanh:
      case ir::EpOp::Silu:
      case ir::EpOp::Sigmoid:
      case ir::EpOp::Tanh:
      case ir::EpOp::Exp:
        if (live[i]) f.special_functions += 1;
        break;
      default:
        break;
    }
  }
  return f;
}

int64_t pingpongTiles(const MatmulProblem& problem) {
  return ceilDiv(problem.m, kPingPongTile.m) * ceilDiv(problem.n, kPingPongTile.n) * problem.batch;
}

ConsumerChoice chooseConsumersSm90(const MatmulProblem& problem, const DeviceSpec& device) {
  return modelConsumers(epilogueFeatures(problem), problem.k,
                        static_cast<double>(pingpongTiles(problem)) / static_cast<double>(device.sm_count));
}

std::optional<ConsumerChoice> chooseShortKConsumersSm90(const MatmulProblem& problem, const DeviceSpec& device) {
  const int64_t k_tiles = ceilDiv(problem.k, kPingPongTile.k);
  const double per_sm = static_cast<double>(pingpongTiles(problem)) / static_cast<double>(device.sm_count);
  if (!problem.epilogue.isIdentity() || problem.k >= kShortestModelledK || per_sm < kShortKPingPongTilesPerSm) {
    return std::nullopt;
  }
  ConsumerChoice c;
  c.pingpong = true;
  c.rule = fmt::format(
      "chooseShortKConsumersSm90: {} K tiles, {:.2f} 128x128 tiles an SM: ping-pong hides each tile's start and "
      "epilogue behind the other warpgroup's main loop",
      k_tiles, per_sm);
  return c;
}

ConsumerChoice modelConsumers(const EpilogueFeatures& f, int64_t k, double per_sm, const ConsumerModelCosts& costs) {
  ConsumerChoice c;
  c.epilogue = (costs.output_byte * f.output_bytes + costs.aux_byte * f.aux_bytes +
                costs.aux_by_tma_byte * f.aux_by_tma_bytes + costs.matrix_byte * f.matrix_bytes +
                costs.matrix_by_tma_byte * f.matrix_by_tma_bytes + costs.special_function * f.special_functions +
                costs.bias * f.bias) /
               static_cast<double>(k);
  const double whole = std::ceil(per_sm), e = c.epilogue, loss = costs.pingpong_main_loop_loss;
  const double cooperative = per_sm * (1 + e / 2);
  const double pingpong = std::max(whole * (1 + loss) + e, whole / 2 * (1 + loss + e));
  c.gain = cooperative / pingpong;
  c.pingpong = c.gain > 1;
  c.rule = fmt::format(
      "chooseConsumersSm90: a tile's epilogue modelled at {:.2f} of its main loop, {:.2f} 128x128 tiles an SM; "
      "ping-pong modelled at {:.2f}x the cooperative kernel's speed",
      e, per_sm, c.gain);
  return c;
}

}  // namespace tilegrid::scheduler
