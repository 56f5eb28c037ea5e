#include "support/transform_maps.h"

namespace tilegrid::testing {

std::vector<ir::Val> CompiledMap::indexVars(size_t n) {
  std::vector<ir::Val> vars;
  for (size_t i = 0; i < n; ++i) vars.push_back(ir::Val::loopIndex("a" + std::to_string(i)));
  return vars;
}

CompiledMap::CompiledMap(const std::vector<ir::Val>& exprs, size_t arity, std::vector<std::string> extra_vars) {
  std::vector<std::string> order;
  for (size_t i = 0; i < arity; ++i) order.push_back("a" + std::to_string(i));
  order.insert(order.end(), extra_vars.begin(), extra_vars.end());
  for (const ir::Val& e : exprs) compiled_.emplace_back(e, order);
}

std::vector<int64_t> CompiledMap::operator()(const std::vector<int64_t>& args) const {
  std::vector<int64_t> out;
  for (const ir::CompiledVal& c : compiled_) out.push_back(c(args));
  return out;
}

TransformMaps compileMaps(const ir::Transform& t, std::vector<std::string> extra_vars) {
  const size_t n_in = t.inputExtents().size();
  const size_t n_out = t.outputExtents().size();
  const ir::BackwardResult back = t.backward(CompiledMap::indexVars(n_out));
  return TransformMaps{CompiledMap(t.forward(CompiledMap::indexVars(n_in)), n_in, extra_vars),
                       CompiledMap(back.inputs, n_out, extra_vars),
                       CompiledMap({ir::allOf(back.predicates)}, n_out, extra_vars)};
}

std::vector<std::vector<int64_t>> allIndices(const std::vector<int64_t>& extents) {
  std::vector<std::vector<int64_t>> result{{}};
  for (int64_t extent : extents) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : result) {
      for (int64_t i = 0; i < extent; ++i) {
        auto tuple = prefix;
        tuple.push_back(i);
        next.push_back(std::move(tuple));
      }
    }
    result = std::move(next);
  }
  return result;
}

}  // namespace tilegrid::testing
