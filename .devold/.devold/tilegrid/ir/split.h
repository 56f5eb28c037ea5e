#pragma once
#include "tilegrid/ir/transform.h"

namespace tilegrid::ir {

// Split(I, f): an inner split gives (ceilDiv(I, f), f); an outer split gives (f, ceilDiv(I, f)).
// backward: in = outer * inner_extent + inner, valid only while in < I when the two output
// extents do not provably multiply to I.
class Split final : public Transform {
 public:
  Split(const Val& extent, const Val& factor, bool inner_split);

  std::string kind() const override { return "Split"; }
  std::string params() const override;
  std::vector<Val> forward(const std::vector<Val>& inputs) const override;
  BackwardResult backward(const std::vector<Val>& outputs) const override;
  std::unique_ptr<Transform> clone() const override { return std::make_unique<Split>(*this); }

  const Val& factor() const { return factor_; }
  bool innerSplit() const { return inner_split_; }
  // True when outer extent * inner extent provably equals the input extent: no predicate needed.
  bool divisible() const;

 private:
  Val factor_;
  bool inner_split_;
};

}  // namespace tilegrid::ir
