#include "tilegrid/ir/indexer.h"

#include <algorithm>
#include <optional>

#include "tilegrid/ir/check.h"

namespace tilegrid::ir {

Val IndexResult::predicate() const { return allOf(predicates); }

std::vector<Val> Indexer::defaultLoopIndices() const {
  std::vector<Val> indices;
  for (IterDomainId id : domain_.loop()) {
    const IterDomain& d = domain_.iterDomain(id);
    const char* builtin = cudaBuiltin(d.parallel);
    indices.push_back(builtin ? Val::builtin(builtin) : Val::loopIndex(d.indexName()));
  }
  return indices;
}

IndexResult Indexer::logicalIndex(const std::vector<Val>& loop_indices) const {
  return index(domain_.loop(), loop_indices, domain_.logical());
}

IndexResult Indexer::allocationIndex(const std::vector<Val>& loop_indices) const {
  return index(domain_.loop(), loop_indices, domain_.allocation());
}

IndexResult Indexer::index(const std::vector<IterDomainId>& from, const std::vector<Val>& from_indices,
                           const std::vector<IterDomainId>& to) const {
  TG_USER_CHECK(from.size() == from_indices.size())
      << "indexing TensorDomain '" << domain_.name() << "': " << from.size() << " axes but " << from_indices.size()
      << " index values";
  const TransformGraph& graph = domain_.graph();
  std::vector<std::optional<Val>> known(graph.numIterDomains());
  for (size_t i = 0; i < from.size(); ++i) known.at(static_cast<size_t>(from[i].index)) = from_indices[i];
  auto isKnown = [&](IterDomainId id) { return known[static_cast<size_t>(id.index)].has_value(); };
  auto valueOf = [&](const std::vector<IterDomainId>& ids) {
    std::vector<Val> values;
    for (IterDomainId id : ids) values.push_back(*known[static_cast<size_t>(id.index)]);
    return values;
  };

  IndexResult result;
  // Backward: consumers before producers, so every output is known before its transform is undone.
  const std::vector<size_t> producing_from = graph.transformsProducing(from);
  for (auto it = producing_from.rbegin(); it != producing_from.rend(); ++it) {
    const Transform& t = graph.transform(*it);
    const bool outputs_known = std::all_of(t.outputs().begin(), t.outputs().end(), isKnown);
    const bool inputs_known = std::all_of(t.inputs().begin(), t.inputs().end(), isKnown);
    if (!outputs_known || inputs_known) continue;
    BackwardResult back = t.backward(valueOf(t.outputs()));
    for (size_t i = 0; i < t.inputs().size(); ++i) known[static_cast<size_t>(t.inputs()[i].index)] = back.inputs[i];
    for (Val& p : back.predicates) result.predicates.push_back(std::move(p));
  }
  // Forward: producers before consumers, from the logical domain out to the target.
  for (size_t t_index : graph.transformsProducing(to)) {
    const Transform& t = graph.transform(t_index);
    const bool outputs_known = std::all_of(t.outputs().begin(), t.outputs().end(), isKnown);
    const bool inputs_known = std::all_of(t.inputs().begin(), t.inputs().end(), isKnown);
    if (outputs_known || !inputs_known) continue;
    std::vector<Val> outs = t.forward(valueOf(t.inputs()));
    for (size_t i = 0; i < t.outputs().size(); ++i) known[static_cast<size_t>(t.outputs()[i].index)] = outs[i];
  }
  for (IterDomainId id : to) {
    TG_USER_CHECK(isKnown(id)) << "cannot index " << domain_.iterDomain(id).toString() << " of TensorDomain '"
                               << domain_.name() << "' from " << toString(domain_, from)
                               << ": that domain does not determine it";
    result.indices.push_back(*known[static_cast<size_t>(id.index)]);
  }
  // Keep the first occurrence of each predicate: nested splits often repeat the logical bound.
  std::vector<Val> unique;
  for (const Val& p : result.predicates) {
    if (p.constValue() && *p.constValue() != 0) continue;
    if (std::none_of(unique.begin(), unique.end(), [&](const Val& u) { return u.sameAs(p); })) unique.push_back(p);
  }
  result.predicates = std::move(unique);
  return result;
}

Val Indexer::linearize(const std::vector<IterDomainId>& domain, const std::vector<Val>& indices) const {
  TG_USER_CHECK(domain.size() == indices.size())
      << "linearize: " << domain.size() << " axes but " << indices.size() << " indices";
  Val offset(0);
  if (domain == domain_.allocation() && !domain_.allocationStrides().empty()) {
    for (size_t i = 0; i < domain.size(); ++i) offset = offset + indices[i] * domain_.allocationStrides()[i];
    return offset;
  }
  Val stride(1);
  for (size_t i = domain.size(); i-- > 0;) {
    offset = indices[i] * stride + offset;
    stride = stride * domain_.iterDomain(domain[i]).extent;
  }
  return offset;
}

}  // namespace tilegrid::ir
