#include "ir/transform_graph.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/graph/topological_sort.hpp>
#include <algorithm>
#include <iterator>

#include "ir/error.h"

namespace tilegrid::ir {

TransformGraph::TransformGraph(const TransformGraph& other)
    : graph_(other.graph_),
      ids_(other.ids_),
      id_vertex_(other.id_vertex_),
      transform_vertex_(other.transform_vertex_) {
  transforms_.reserve(other.transforms_.size());
  for (const auto& t : other.transforms_) transforms_.push_back(t->clone());
}

TransformGraph& TransformGraph::operator=(const TransformGraph& other) {
  if (this != &other) *this = TransformGraph(other);
  return *this;
}

void TransformGraph::checkId(IterDomainId id) const {
  TG_INTERNAL_CHECK(id.index >= 0 && static_cast<size_t>(id.index) < ids_.size())
      << "IterDomain id " << id.index << " is not in this graph (" << ids_.size() << " domains)";
}

IterDomainId TransformGraph::addIterDomain(std::string name, Val extent, IterType type) {
  if (auto e = extent.constValue()) {
    TG_USER_CHECK(*e >= 1) << "IterDomain '" << name << "' has extent " << *e << ": extents must be >= 1";
  }
  IterDomainId id{static_cast<int>(ids_.size())};
  ids_.push_back(IterDomain{id, std::move(name), std::move(extent), type, ParallelType::Serial});
  id_vertex_.push_back(boost::add_vertex(Vertex{false, id.index}, graph_));
  return id;
}

std::vector<IterDomainId> TransformGraph::addTransform(std::unique_ptr<Transform> transform,
                                                       const std::vector<IterDomainId>& inputs,
                                                       const std::string& output_name) {
  TG_INTERNAL_CHECK(transform != nullptr) << "null transform";
  TG_INTERNAL_CHECK(inputs.size() == transform->inputExtents().size())
      << transform->kind() << " takes " << transform->inputExtents().size() << " inputs, got " << inputs.size();
  const int index = static_cast<int>(transforms_.size());
  const VertexDesc tv = boost::add_vertex(Vertex{true, index}, graph_);
  for (IterDomainId in : inputs) {
    checkId(in);
    boost::add_edge(id_vertex_[in.index], tv, graph_);
  }
  // Outputs inherit the input's iteration kind: splitting a reduction axis gives reduction axes.
  const IterType type = iterDomain(inputs.front()).iter_type;
  std::vector<IterDomainId> outputs;
  for (const Val& extent : transform->outputExtents()) {
    IterDomainId out = addIterDomain(output_name, extent, type);
    boost::add_edge(tv, id_vertex_[out.index], graph_);
    outputs.push_back(out);
  }
  transform->inputs_ = inputs;
  transform->outputs_ = outputs;
  transforms_.push_back(std::move(transform));
  transform_vertex_.push_back(tv);
  return outputs;
}

const IterDomain& TransformGraph::iterDomain(IterDomainId id) const {
  checkId(id);
  return ids_[id.index];
}

IterDomain& TransformGraph::iterDomain(IterDomainId id) {
  checkId(id);
  return ids_[id.index];
}

std::optional<size_t> TransformGraph::definition(IterDomainId id) const {
  checkId(id);
  auto [begin, end] = boost::in_edges(id_vertex_[id.index], graph_);
  if (begin == end) return std::nullopt;
  return static_cast<size_t>(graph_[boost::source(*begin, graph_)].index);
}

std::vector<size_t> TransformGraph::topologicalOrder() const {
  std::vector<VertexDesc> reversed;
  boost::topological_sort(graph_, std::back_inserter(reversed));
  std::vector<size_t> order;
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    if (graph_[*it].is_transform) order.push_back(static_cast<size_t>(graph_[*it].index));
  }
  return order;
}

std::vector<TransformGraph::VertexDesc> TransformGraph::ancestors(const std::vector<IterDomainId>& ids) const {
  // A breadth-first search on the reversed graph from all of `ids` at once reaches exactly the
  // vertices they depend on.
  auto reversed = boost::make_reverse_graph(graph_);
  std::vector<VertexDesc> sources;
  for (IterDomainId id : ids) {
    checkId(id);
    sources.push_back(id_vertex_[id.index]);
  }
  std::vector<VertexDesc> reached;
  struct Recorder : boost::default_bfs_visitor {
    std::vector<VertexDesc>* out;
    void discover_vertex(VertexDesc v, const decltype(reversed)&) const { out->push_back(v); }
  } recorder;
  recorder.out = &reached;
  std::vector<boost::default_color_type> colors(boost::num_vertices(graph_));
  boost::queue<VertexDesc> queue;
  auto color_map = boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, graph_));
  boost::breadth_first_search(reversed, sources.begin(), sources.end(), queue, recorder, color_map);
  return reached;
}

std::vector<size_t> TransformGraph::transformsProducing(const std::vector<IterDomainId>& ids) const {
  std::vector<bool> needed(transforms_.size(), false);
  for (VertexDesc v : ancestors(ids)) {
    if (graph_[v].is_transform) needed[graph_[v].index] = true;
  }
  std::vector<size_t> order = topologicalOrder();
  std::erase_if(order, [&](size_t t) { return !needed[t]; });
  return order;
}

std::set<IterDomainId> TransformGraph::roots(const std::vector<IterDomainId>& ids) const {
  std::set<IterDomainId> result;
  for (VertexDesc v : ancestors(ids)) {
    if (!graph_[v].is_transform && boost::in_degree(v, graph_) == 0) result.insert(IterDomainId{graph_[v].index});
  }
  return result;
}

}  // namespace tilegrid::ir
