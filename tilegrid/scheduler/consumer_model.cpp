#include "tilegrid/scheduler/consumer_model.h"

#include <fmt/format.h>

#include "tilegrid/scheduler/epilogue_plan.h"

namespace tilegrid::scheduler {

EpilogueFeatures epilogueFeatures(const MatmulProblem& problem) {
  EpilogueFeatures f;
  for (const EpilogueOperandUse& o : planEpilogue(problem).operands) {
    if (o.written) {
      f.aux_bytes += o.bytes_per_output;
    } else if (o.name == "c" || o.name == "residual") {
      f.matrix_bytes += o.bytes_per_output;
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

ConsumerChoice chooseConsumersSm90(const MatmulProblem& problem) {
  const EpilogueFeatures f = epilogueFeatures(problem);
  ConsumerChoice c;
  c.epilogue_share = (kAuxByteCost * f.aux_bytes + kMatrixByteCost * f.matrix_bytes +
                      kSpecialFunctionCost * f.special_functions + kBiasCost * f.bias) /
                     static_cast<double>(problem.k);
  c.gain = (1 + c.epilogue_share) / ((1 + kPingPongMainLoopLoss) * (1 + kPingPongEpilogueShare * c.epilogue_share));
  c.pingpong = c.gain > 1;
  c.rule = fmt::format(
      "chooseConsumersSm90: the epilogue modelled at {:.2f} of the cooperative main loop, ping-pong at {:.2f}x its "
      "speed",
      c.epilogue_share, c.gain);
  return c;
}

}  // namespace tilegrid::scheduler
