#include "tilegrid/ir/affine.h"

#include <algorithm>

namespace tilegrid::ir {
namespace {

bool mentions(const Val& v, const std::string& var) {
  const std::vector<std::string> vars = v.freeVars();
  return std::binary_search(vars.begin(), vars.end(), var);
}

}  // namespace

std::optional<AffineForm> affineIn(const Val& v, const std::string& var) {
  if (!mentions(v, var)) return AffineForm{v, Val(0)};
  if (v.op() == Op::Var) return AffineForm{Val(0), Val(1)};
  const std::vector<Val> ops = v.operands();
  switch (v.op()) {
    case Op::Add:
    case Op::Sub: {
      const auto a = affineIn(ops[0], var), b = affineIn(ops[1], var);
      if (!a || !b) return std::nullopt;
      if (v.op() == Op::Add) return AffineForm{a->base + b->base, a->step + b->step};
      return AffineForm{a->base - b->base, a->step - b->step};
    }
    case Op::Mul: {
      // (base + step x) * c with c free of x; both factors holding x is not affine.
      const bool left = mentions(ops[0], var);
      if (left && mentions(ops[1], var)) return std::nullopt;
      const auto a = affineIn(left ? ops[0] : ops[1], var);
      if (!a) return std::nullopt;
      const Val& factor = left ? ops[1] : ops[0];
      return AffineForm{a->base * factor, a->step * factor};
    }
    default: return std::nullopt;
  }
}

}  // namespace tilegrid::ir
