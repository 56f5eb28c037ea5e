#pragma once
// TransformGraph: owns the IterDomains and transforms of one TensorDomain's history.
//
// The history is a bipartite DAG held in Boost.Graph: an edge runs from each input IterDomain to
// the transform that consumes it, and from the transform to each output. Ordering (topological sort)
// and path finding (which transforms lie between two domains) are BGL algorithms over it. The graph
// lives in the source file (Topology), so that users of the IR never compile Boost.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tilegrid/ir/iter_domain.h"
#include "tilegrid/ir/transform.h"

namespace tilegrid::ir {

class TransformGraph {
 public:
  TransformGraph();
  ~TransformGraph();
  TransformGraph(const TransformGraph& other);
  TransformGraph& operator=(const TransformGraph& other);
  TransformGraph(TransformGraph&&) noexcept;
  TransformGraph& operator=(TransformGraph&&) noexcept;

  IterDomainId addIterDomain(std::string name, Val extent, IterType type = IterType::Iteration);
  // Adds `transform` consuming `inputs`, creates its outputs (named `output_name`) and returns them.
  std::vector<IterDomainId> addTransform(std::unique_ptr<Transform> transform, const std::vector<IterDomainId>& inputs,
                                         const std::string& output_name = "i");

  const IterDomain& iterDomain(IterDomainId id) const;
  IterDomain& iterDomain(IterDomainId id);
  size_t numIterDomains() const { return ids_.size(); }
  size_t numTransforms() const { return transforms_.size(); }
  const Transform& transform(size_t index) const { return *transforms_.at(index); }

  // The transform that produced `id`, if any (logical domains have none).
  std::optional<size_t> definition(IterDomainId id) const;
  // All transforms, producers before consumers.
  std::vector<size_t> topologicalOrder() const;
  // The transforms some IterDomain of `ids` depends on, in topological order.
  std::vector<size_t> transformsProducing(const std::vector<IterDomainId>& ids) const;
  // The IterDomains `ids` depend on that no transform produced (their logical roots), sorted.
  std::set<IterDomainId> roots(const std::vector<IterDomainId>& ids) const;

  struct Topology;  // the Boost graph and each domain's and transform's vertex in it (opaque)

 private:
  // The vertices `ids` depend on, themselves included.
  std::vector<size_t> ancestors(const std::vector<IterDomainId>& ids) const;
  void checkId(IterDomainId id) const;

  std::unique_ptr<Topology> topology_;
  std::vector<IterDomain> ids_;
  std::vector<std::unique_ptr<Transform>> transforms_;
};

}  // namespace tilegrid::ir
