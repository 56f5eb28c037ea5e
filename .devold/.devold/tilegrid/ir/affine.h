#pragma once
// Affine decomposition of index math: v == base + step * x for one variable x, with base and step
// free of x. Exact algebra on the expression tree, not sampling: where it answers, the identity holds
// for every value of every variable. Emitters use it to step an address by a constant (or a value
// read at launch) instead of evaluating the whole index again.
#include <optional>
#include <string>

#include "tilegrid/ir/val.h"

namespace tilegrid::ir {

struct AffineForm {
  Val base;  // v with x = 0
  Val step;  // what one more x adds
};

// Sums, differences and products where at most one factor holds `var` decompose; `var` inside
// anything else (a division, a modulo, a select, an XOR) does not, and the answer is nothing.
std::optional<AffineForm> affineIn(const Val& v, const std::string& var);

}  // namespace tilegrid::ir
