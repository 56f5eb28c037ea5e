#pragma once
// TensorDomain: the logical, loop and allocation domains of one tensor (or tile grid) and the
// transform history that links them.
//
// The scheduling calls (split, merge, reorder, swizzle, swizzle2d, swizzleMerge, parallelize) act on
// the loop domain, by position; negative positions count from the end. To schedule an allocation
// domain, schedule the loop, call setAllocationDomain(loop()), then setLoopDomain(logical()) and
// schedule the loop again: both derive from the logical domain in one graph, so the Indexer can go
// from either to the other.
#include <map>
#include <string>
#include <vector>

#include "tilegrid/ir/swizzle2d.h"
#include "tilegrid/ir/transform_graph.h"

namespace tilegrid::ir {

struct AxisSpec {
  std::string name;
  Val extent;
  IterType iter_type = IterType::Iteration;
};

class TensorDomain {
 public:
  TensorDomain(std::string name, const std::vector<AxisSpec>& logical);

  const std::string& name() const { return name_; }
  const std::vector<IterDomainId>& logical() const { return logical_; }
  const std::vector<IterDomainId>& loop() const { return loop_; }
  // The logical domain unless one was set.
  const std::vector<IterDomainId>& allocation() const { return allocation_; }

  size_t nDims() const { return loop_.size(); }
  // The loop IterDomain at `position`.
  const IterDomain& axis(int position) const;
  const IterDomain& iterDomain(IterDomainId id) const { return graph_.iterDomain(id); }
  const TransformGraph& graph() const { return graph_; }

  // Replaces the loop IterDomain at `axis` with (ceilDiv(I, f), f), or (f, ceilDiv(I, f)) if !inner.
  TensorDomain& split(int axis, const Val& factor, bool inner_split = true);
  // Replaces the two IterDomains with their merge, placed where the first of them was.
  TensorDomain& merge(int axis_outer, int axis_inner);
  TensorDomain& merge(int axis_outer) { return merge(axis_outer, axis_outer + 1); }
  // Moves axes: old position -> new position. Unnamed axes keep their relative order.
  TensorDomain& reorder(const std::map<int, int>& old_to_new);
  TensorDomain& swizzle(int axis, int bits, int base, int shift);
  TensorDomain& swizzle2d(int axis_x, int axis_y, Swizzle2DKind kind);
  // Replaces the two axes with their SwizzleMerge, placed where the first of them was.
  // Each factor is a constant or a problem parameter (ir/swizzle_merge.h).
  TensorDomain& swizzleMerge(int axis_x, int axis_y, const std::vector<Val>& factors);
  TensorDomain& parallelize(int axis, ParallelType type);

  // Both must be derived from, and together cover, the logical domain exactly once.
  TensorDomain& setLoopDomain(const std::vector<IterDomainId>& domain);
  TensorDomain& setAllocationDomain(const std::vector<IterDomainId>& domain);
  // The distance in elements between neighbours along each allocation axis, as nvFuser's allocation
  // domain carries them for a tensor with padded rows: a global matrix's rows lie a leading
  // dimension apart, which may exceed the contiguous extent. Without strides the allocation is
  // dense (row-major over its extents).
  TensorDomain& setAllocationStrides(const std::vector<Val>& strides);
  // Empty unless set.
  const std::vector<Val>& allocationStrides() const { return allocation_strides_; }

  // Domains, then the transform history in the order it applies.
  std::string toString() const;

 private:
  size_t position(int axis, const char* what) const;
  void checkDerivedDomain(const std::vector<IterDomainId>& domain, const char* what) const;
  // Replaces the loop axes at `positions` with `outputs`, inserted where the first of them was.
  void replaceAxes(std::vector<size_t> positions, const std::vector<IterDomainId>& outputs);

  std::string name_;
  TransformGraph graph_;
  std::vector<IterDomainId> logical_;
  std::vector<IterDomainId> loop_;
  std::vector<IterDomainId> allocation_;
  std::vector<Val> allocation_strides_;
};

std::string toString(const TensorDomain& domain, const std::vector<IterDomainId>& ids);

}  // namespace tilegrid::ir
