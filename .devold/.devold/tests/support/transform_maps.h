#pragma once
// Turns a transform's symbolic forward/backward rules into plain functions on integers, so tests
// can check them on every index of small domains. Building them symbolically (and evaluating the
// compiled expressions) exercises exactly the Vals that codegen prints.
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrid/ir/transform.h"

namespace tilegrid::testing {

class CompiledMap {
 public:
  // `extra_vars` are further free variables (symbolic extents) bound positionally after the indices.
  CompiledMap(const std::vector<ir::Val>& exprs, size_t arity, std::vector<std::string> extra_vars = {});
  std::vector<int64_t> operator()(const std::vector<int64_t>& args) const;

  static std::vector<ir::Val> indexVars(size_t n);

 private:
  std::vector<ir::CompiledVal> compiled_;
};

struct TransformMaps {
  CompiledMap forward;
  CompiledMap backward;
  CompiledMap predicate;  // one value: 1 when the backward result is valid
};

TransformMaps compileMaps(const ir::Transform& t, std::vector<std::string> extra_vars = {});

// Every index tuple of a domain with these extents, first axis slowest.
std::vector<std::vector<int64_t>> allIndices(const std::vector<int64_t>& extents);

}  // namespace tilegrid::testing
