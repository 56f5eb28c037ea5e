#pragma once
// Indexer: from index Vals on one domain of a TensorDomain to the indices of another.
//
// Given a value for every IterDomain of the `from` domain (usually the loop domain: blockIdx.x,
// loop variables), it walks the transform graph: backward through the transforms that produced
// `from`, down to the logical domain, then forward through the transforms that produce the `to`
// domain (the logical domain itself, or the allocation domain). Each step calls only the
// transform's forward() or backward(). Backward steps through non-divisible splits contribute
// predicates: the index is valid only where all of them hold.
#include <vector>

#include "tilegrid/ir/tensor_domain.h"

namespace tilegrid::ir {

struct IndexResult {
  // One index per IterDomain of the target domain, in its order.
  std::vector<Val> indices;
  // The conditions for the indices to be valid, deduplicated; empty when every step is exact.
  std::vector<Val> predicates;
  // The conjunction of `predicates` (`true` when there are none).
  Val predicate() const;
};

class Indexer {
 public:
  explicit Indexer(const TensorDomain& domain) : domain_(domain) {}

  // The natural index of each loop IterDomain: the CUDA built-in for parallel axes (blockIdx.x),
  // else a loop variable named after the domain (`i5`).
  std::vector<Val> defaultLoopIndices() const;

  IndexResult logicalIndex(const std::vector<Val>& loop_indices) const;
  IndexResult allocationIndex(const std::vector<Val>& loop_indices) const;
  IndexResult index(const std::vector<IterDomainId>& from, const std::vector<Val>& from_indices,
                    const std::vector<IterDomainId>& to) const;

  // The row-major linear offset of `indices` over `domain` (last axis contiguous), or over the
  // allocation domain with its strides where the TensorDomain sets them.
  Val linearize(const std::vector<IterDomainId>& domain, const std::vector<Val>& indices) const;

 private:
  const TensorDomain& domain_;
};

}  // namespace tilegrid::ir
