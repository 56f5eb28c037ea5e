#include "tilegrid/ir/transform_graph.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/graph/topological_sort.hpp>
#include <algorithm>
#include <iterator>

#include "tilegrid/ir/check.h"

namespace tilegrid::ir {

struct TransformGraph::Topology {
  struct Vertex {
    bool is_transform = false;
    int index = -1;  // into ids_ or transforms_
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Vertex>;
  using VertexDesc = Graph::vertex_descriptor;

  Graph graph;
  std::vector<VertexDesc> id_vertex;
  std::vector<VertexDesc> transform_vertex;
};

using VertexDesc = TransformGraph::Topology::VertexDesc;

TransformGraph::TransformGraph() : topology_(std::make_unique<Topology>()) {}
TransformGraph::~TransformGraph() = default;
TransformGraph::TransformGraph(TransformGraph&&) noexcept = default;
TransformGraph& TransformGraph::operator=(TransformGraph&&) noexcept = default;

TransformGraph::TransformGraph(const TransformGraph& other)
    : topology_(std::make_unique<Topology>(*other.topology_)), ids_(other.ids_) {
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
  topology_->id_vertex.push_back(boost::add_vertex(Topology::Vertex{false, id.index}, topology_->graph));
  return id;
}

std::vector<IterDomainId> TransformGraph::addTransform(std::unique_ptr<Transform> transform,
                                                       const std::vector<IterDomainId>& inputs,
                                                       const std::string& output_name) {
  TG_INTERNAL_CHECK(transform != nullptr) << "null transform";
  TG_INTERNAL_CHECK(inputs.size() == transform->inputExtents().size())
      << transform->kind() << " takes " << transform->inputExtents().size() << " inputs, got " << inputs.size();
  const int index = static_cast<int>(transforms_.size());
  auto& graph = topology_->graph;
  const VertexDesc tv = boost::add_vertex(Topology::Vertex{true, index}, graph);
  for (IterDomainId in : inputs) {
    checkId(in);
    boost::add_edge(topology_->id_vertex[in.index], tv, graph);
  }
  // Outputs inherit the input's iteration kind: splitting a reduction axis gives reduction axes.
  const IterType type = iterDomain(inputs.front()).iter_type;
  std::vector<IterDomainId> outputs;
  for (const Val& extent : transform->outputExtents()) {
    IterDomainId out = addIterDomain(output_name, extent, type);
    boost::add_edge(tv, topology_->id_vertex[out.index], graph);
    outputs.push_back(out);
  }
  transform->inputs_ = inputs;
  transform->outputs_ = outputs;
  transforms_.push_back(std::move(transform));
  topology_->transform_vertex.push_back(tv);
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
  const auto& graph = topology_->graph;
  auto [begin, end] = boost::in_edges(topology_->id_vertex[id.index], graph);
  if (begin == end) return std::nullopt;
  return static_cast<size_t>(graph[boost::source(*begin, graph)].index);
}

std::vector<size_t> TransformGraph::topologicalOrder() const {
  const auto& graph = topology_->graph;
  std::vector<VertexDesc> reversed;
  boost::topological_sort(graph, std::back_inserter(reversed));
  std::vector<size_t> order;
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    if (graph[*it].is_transform) order.push_back(static_cast<size_t>(graph[*it].index));
  }
  return order;
}

std::vector<size_t> TransformGraph::ancestors(const std::vector<IterDomainId>& ids) const {
  // A breadth-first search on the reversed graph from all of `ids` at once reaches exactly the
  // vertices they depend on.
  const auto& graph = topology_->graph;
  auto reversed = boost::make_reverse_graph(graph);
  std::vector<VertexDesc> sources;
  for (IterDomainId id : ids) {
    checkId(id);
    sources.push_back(topology_->id_vertex[id.index]);
  }
  std::vector<VertexDesc> reached;
  struct Recorder : boost::default_bfs_visitor {
    std::vector<VertexDesc>* out;
    void discover_vertex(VertexDesc v, const decltype(reversed)&) const { out->push_back(v); }
  } recorder;
  recorder.out = &reached;
  std::vector<boost::default_color_type> colors(boost::num_vertices(graph));
  boost::queue<VertexDesc> queue;
  auto color_map = boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, graph));
  boost::breadth_first_search(reversed, sources.begin(), sources.end(), queue, recorder, color_map);
  return reached;
}

std::vector<size_t> TransformGraph::transformsProducing(const std::vector<IterDomainId>& ids) const {
  std::vector<bool> needed(transforms_.size(), false);
  const auto& graph = topology_->graph;
  for (VertexDesc v : ancestors(ids)) {
    if (graph[v].is_transform) needed[graph[v].index] = true;
  }
  std::vector<size_t> order = topologicalOrder();
  std::erase_if(order, [&](size_t t) { return !needed[t]; });
  return order;
}

std::set<IterDomainId> TransformGraph::roots(const std::vector<IterDomainId>& ids) const {
  std::set<IterDomainId> result;
  const auto& graph = topology_->graph;
  for (VertexDesc v : ancestors(ids)) {
    if (!graph[v].is_transform && boost::in_degree(v, graph) == 0) result.insert(IterDomainId{graph[v].index});
  }
  return result;
}

}  // namespace tilegrid::ir
