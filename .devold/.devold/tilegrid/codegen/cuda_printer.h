#pragma once
// Printing index math as CUDA. Every schedule-dependent index in generated code goes through here,
// from Vals the Indexer produced; nothing index-related is written by hand.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilegrid/ir/val.h"

namespace tilegrid::codegen {

// The range of a variable an index expression is printed for: [0, max].
using VarRanges = std::map<std::string, int64_t>;

// The C++ type an index value needs: bool for predicates, int while every intermediate value stays
// below 2^31 over `ranges`, else long long.
std::string indexType(const ir::Val& value, const VarRanges& ranges);

// The expression as CUDA. Where 32 bits could overflow, every variable is widened to long long
// first, so the whole computation happens in 64 bits.
std::string printIndex(const ir::Val& value, const VarRanges& ranges);

// `const int tile_m = blockIdx.x / 7;`: the declaration of one index computed from `value`.
std::string declareIndex(const std::string& name, const ir::Val& value, const VarRanges& ranges = {});

struct IndexFunctionParam {
  std::string name;
  int64_t max;  // the parameter ranges over [0, max]
};

struct IndexFunctionResult {
  std::string name;
  ir::Val value;
  // The type the kernel declares the result as, where its callers fix it (tile coordinates are int,
  // a bound the schedule guarantees); the value is computed as wide as it needs and converted.
  // Empty: the type its range needs.
  std::string type = {};
};

// A __device__ function computing `results` from `params`: one result is returned, several are
// written through references. `comment` says what it indexes. With `shape` set, the function takes
// the launch's problem parameters first (`const tg_problem& p`), and each problem parameter (a Val
// of VarKind::Param) is read from it (`p.m`), ranging over [1, shape[name]]; the types are chosen
// for those ranges. Without it, the results must not depend on problem parameters. Each of
// `template_params` (a problem parameter ranging over [1, max]) becomes an int template parameter of
// the function, so that callers instance it per value and each instance divides by a constant.
// With `tag`, the function takes an unnamed argument of that type first: functions of one name for
// different cases (C's orientations) are then overloads, picked by the caller's tag.
std::string emitIndexFunction(const std::string& name, const std::string& comment,
                              const std::vector<IndexFunctionParam>& params,
                              const std::vector<IndexFunctionResult>& results,
                              const std::optional<VarRanges>& shape = std::nullopt,
                              const std::vector<IndexFunctionParam>& template_params = {},
                              const std::string& tag = {});

}  // namespace tilegrid::codegen
