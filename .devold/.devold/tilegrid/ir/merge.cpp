#include "tilegrid/ir/merge.h"

namespace tilegrid::ir {

Merge::Merge(const Val& outer_extent, const Val& inner_extent)
    : Transform({outer_extent, inner_extent}, {outer_extent * inner_extent}) {}

std::vector<Val> Merge::forward(const std::vector<Val>& inputs) const {
  checkArity(inputs, 2, "forward");
  return {inputs[0] * inputExtents()[1] + inputs[1]};
}

BackwardResult Merge::backward(const std::vector<Val>& outputs) const {
  checkArity(outputs, 1, "backward");
  const Val& inner_extent = inputExtents()[1];
  return {{outputs[0] / inner_extent, outputs[0] % inner_extent}, {}};
}

}  // namespace tilegrid::ir
