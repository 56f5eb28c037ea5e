#pragma once
#include "tilegrid/ir/transform.h"

namespace tilegrid::ir {

// Merge(O, I) -> O*I. forward: o * I + i. backward: (out / I, out % I). Always exact.
class Merge final : public Transform {
 public:
  Merge(const Val& outer_extent, const Val& inner_extent);

  std::string kind() const override { return "Merge"; }
  std::string params() const override { return ""; }
  std::vector<Val> forward(const std::vector<Val>& inputs) const override;
  BackwardResult backward(const std::vector<Val>& outputs) const override;
  std::unique_ptr<Transform> clone() const override { return std::make_unique<Merge>(*this); }
};

}  // namespace tilegrid::ir
