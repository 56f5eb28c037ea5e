#pragma once
// The node behind a Val. Internal to ir/: users go through Val's accessors.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrid/ir/val.h"

namespace tilegrid::ir {

struct ValNode {
  Op op = Op::Const;
  int64_t value = 0;  // Const only
  bool is_bool = false;
  std::string name;  // Var only
  VarKind var_kind = VarKind::Param;
  std::vector<Val> args;
  size_t hash = 0;
};

// The integer semantics of every non-leaf op, shared by constant folding and evaluation. Throws
// UserError on a division by zero or a shift outside [0, 63).
int64_t applyOp(Op op, int64_t a, int64_t b, int64_t c);

}  // namespace tilegrid::ir
