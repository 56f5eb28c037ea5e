#include "tilegrid/ir/split.h"

#include "tilegrid/ir/check.h"

namespace tilegrid::ir {
namespace {

std::vector<Val> splitExtents(const Val& extent, const Val& factor, bool inner_split) {
  if (auto f = factor.constValue()) {
    TG_USER_CHECK(*f >= 1) << "split factor must be >= 1, got " << *f;
  }
  const Val rest = ceilDiv(extent, factor);
  return inner_split ? std::vector<Val>{rest, factor} : std::vector<Val>{factor, rest};
}

}  // namespace

Split::Split(const Val& extent, const Val& factor, bool inner_split)
    : Transform({extent}, splitExtents(extent, factor, inner_split)), factor_(factor), inner_split_(inner_split) {}

std::string Split::params() const {
  return "factor=" + factor_.toString() + (inner_split_ ? ", inner" : ", outer");
}

bool Split::divisible() const {
  return provablyEqual(outputExtents()[0] * outputExtents()[1], inputExtents()[0]);
}

std::vector<Val> Split::forward(const std::vector<Val>& inputs) const {
  checkArity(inputs, 1, "forward");
  const Val& inner_extent = outputExtents()[1];
  return {inputs[0] / inner_extent, inputs[0] % inner_extent};
}

BackwardResult Split::backward(const std::vector<Val>& outputs) const {
  checkArity(outputs, 2, "backward");
  const Val in = outputs[0] * outputExtents()[1] + outputs[1];
  BackwardResult result{{in}, {}};
  if (!divisible()) result.predicates.push_back(in < inputExtents()[0]);
  return result;
}

}  // namespace tilegrid::ir
