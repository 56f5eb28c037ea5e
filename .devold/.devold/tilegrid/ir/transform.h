#pragma once
// Transform: the one interface every IterDomain transform implements.
//
// A transform is an index map between its input and output IterDomains, nothing more. forward()
// takes input indices to output indices; backward() takes output indices to input indices plus the
// predicates that make the result valid (a non-divisible split's overhang). The Indexer walks the
// transform graph calling only these two, so no transform is special-cased anywhere else.
#include <memory>
#include <string>
#include <vector>

#include "tilegrid/ir/iter_domain.h"
#include "tilegrid/ir/val.h"

namespace tilegrid::ir {

struct BackwardResult {
  std::vector<Val> inputs;
  // Conditions under which `inputs` is a valid index (empty when the map is exact).
  std::vector<Val> predicates;
};

class Transform {
 public:
  virtual ~Transform() = default;

  // "Split", "Merge", ...
  virtual std::string kind() const = 0;
  // The parameters in words: "factor=4, inner", "B=3, M=4, S=3".
  virtual std::string params() const = 0;
  virtual std::vector<Val> forward(const std::vector<Val>& inputs) const = 0;
  virtual BackwardResult backward(const std::vector<Val>& outputs) const = 0;
  virtual std::unique_ptr<Transform> clone() const = 0;

  const std::vector<Val>& inputExtents() const { return input_extents_; }
  const std::vector<Val>& outputExtents() const { return output_extents_; }
  // Set by the TransformGraph when the transform is added.
  const std::vector<IterDomainId>& inputs() const { return inputs_; }
  const std::vector<IterDomainId>& outputs() const { return outputs_; }

 protected:
  Transform(std::vector<Val> input_extents, std::vector<Val> output_extents)
      : input_extents_(std::move(input_extents)), output_extents_(std::move(output_extents)) {}
  Transform(const Transform&) = default;
  // Checks arity at the boundary so each transform can index its vectors freely.
  void checkArity(const std::vector<Val>& values, size_t expected, const char* what) const;

 private:
  friend class TransformGraph;
  std::vector<Val> input_extents_;
  std::vector<Val> output_extents_;
  std::vector<IterDomainId> inputs_;
  std::vector<IterDomainId> outputs_;
};

// Whether a == b is provable from the expressions alone (equal constants or the same expression).
bool provablyEqual(const Val& a, const Val& b);

}  // namespace tilegrid::ir
