// Rewriting and bounding Vals: substitution, and the interval analysis codegen uses to decide
// whether an index needs 64-bit arithmetic.
#include <algorithm>
#include <limits>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/val.h"
#include "tilegrid/ir/val_node.h"

namespace tilegrid::ir {

Val rebuildOp(Op op, const std::vector<Val>& args) {
  const auto arity = [&](size_t n) {
    TG_INTERNAL_CHECK(args.size() == n) << opName(op) << " takes " << n << " operands, got " << args.size();
  };
  arity(op == Op::Select ? 3 : 2);
  switch (op) {
    case Op::Add: return args[0] + args[1];
    case Op::Sub: return args[0] - args[1];
    case Op::Mul: return args[0] * args[1];
    case Op::Div: return args[0] / args[1];
    case Op::Mod: return args[0] % args[1];
    case Op::CeilDiv: return ceilDiv(args[0], args[1]);
    case Op::Min: return min(args[0], args[1]);
    case Op::Max: return max(args[0], args[1]);
    case Op::BitXor: return args[0] ^ args[1];
    case Op::BitAnd: return args[0] & args[1];
    case Op::Shl: return args[0] << args[1];
    case Op::Shr: return args[0] >> args[1];
    case Op::Lt: return args[0] < args[1];
    case Op::Le: return args[0] <= args[1];
    case Op::Gt: return args[0] > args[1];
    case Op::Ge: return args[0] >= args[1];
    case Op::Eq: return eq(args[0], args[1]);
    case Op::Ne: return ne(args[0], args[1]);
    case Op::LogicalAnd: return logicalAnd(args[0], args[1]);
    case Op::Select: return select(args[0], args[1], args[2]);
    default: break;
  }
  TG_INTERNAL_ERROR() << "rebuildOp: " << opName(op) << " is not an operation on operands";
  return Val();
}

Val substitute(const Val& v, const std::map<std::string, Val>& replacements) {
  const ValNode& node = *v.node();
  if (node.op == Op::Var) {
    auto it = replacements.find(node.name);
    return it == replacements.end() ? v : it->second;
  }
  if (node.args.empty()) return v;
  std::vector<Val> args;
  for (const Val& a : node.args) args.push_back(substitute(a, replacements));
  return rebuildOp(node.op, args);
}

namespace {

// Bounds of products of two int64 bounds fit in 128 bits; anything past int64 is reported as unknown.
__extension__ typedef __int128 Wide;

struct Range {
  Wide lo, hi;
};

constexpr Wide kLimit = static_cast<Wide>(std::numeric_limits<int64_t>::max());

std::optional<Range> rangeOf(const Val& v, const std::map<std::string, int64_t>& max_of);

// Rewrite rule for a bound interval arithmetic loses: (a / (b * c)) * c <= a / b for a >= 0 and
// b, c >= 1 (the floor of a quotient times its divisor's factor). A traversal with a factor read at
// launch computes megarow * factor this way; the two factors' ranges alone would bound it by the
// product of their maxima. `quotient` is the Div, `c` the other operand of the Mul.
std::optional<Wide> quotientTimesFactorBound(const Val& quotient, const Val& c,
                                             const std::map<std::string, int64_t>& max_of) {
  if (quotient.op() != Op::Div) return std::nullopt;
  const std::vector<Val> div = quotient.operands();
  if (div[1].op() != Op::Mul) return std::nullopt;
  const std::vector<Val> product = div[1].operands();
  const Val* b = product[1].sameAs(c) ? &product[0] : product[0].sameAs(c) ? &product[1] : nullptr;
  if (!b) return std::nullopt;
  const auto ra = rangeOf(div[0], max_of), rb = rangeOf(*b, max_of), rc = rangeOf(c, max_of);
  if (!ra || !rb || !rc || ra->lo < 0 || rb->lo < 1 || rc->lo < 1) return std::nullopt;
  return ra->hi / rb->lo;
}

std::optional<Range> rangeOf(const Val& v, const std::map<std::string, int64_t>& max_of) {
  const ValNode& node = *v.node();
  if (node.op == Op::Const) return Range{node.value, node.value};
  if (node.op == Op::Var) {
    auto it = max_of.find(node.name);
    if (it == max_of.end()) return std::nullopt;
    // A problem parameter is a size (an extent, a leading dimension, a tile count): at least 1.
    const Wide lo = node.var_kind == VarKind::Param ? std::min<Wide>(1, it->second) : 0;
    return Range{lo, it->second};
  }
  std::vector<Range> r;
  for (const Val& a : node.args) {
    auto ra = rangeOf(a, max_of);
    if (!ra) return std::nullopt;
    r.push_back(*ra);
  }
  auto corners = [](Wide a, Wide b, Wide c, Wide d) {
    return Range{std::min({a, b, c, d}), std::max({a, b, c, d})};
  };
  auto pow2Above = [](Wide x) {
    Wide p = 1;
    while (p <= x) p *= 2;
    return p - 1;
  };
  Range out{0, 0};
  switch (node.op) {
    case Op::Add: out = {r[0].lo + r[1].lo, r[0].hi + r[1].hi}; break;
    case Op::Sub: out = {r[0].lo - r[1].hi, r[0].hi - r[1].lo}; break;
    case Op::Mul:
      out = corners(r[0].lo * r[1].lo, r[0].lo * r[1].hi, r[0].hi * r[1].lo, r[0].hi * r[1].hi);
      for (int q = 0; q < 2; ++q) {
        if (const auto hi = quotientTimesFactorBound(node.args[q], node.args[1 - q], max_of)) {
          out = {0, std::min(out.hi, *hi)};
        }
      }
      break;
    case Op::Div:
      if (r[1].lo <= 0) return std::nullopt;
      out = corners(r[0].lo / r[1].lo, r[0].lo / r[1].hi, r[0].hi / r[1].lo, r[0].hi / r[1].hi);
      break;
    case Op::CeilDiv:
      if (r[1].lo <= 0) return std::nullopt;
      if (r[0].lo >= 0) {
        // Exact for non-negative operands: ceilDiv grows with a and shrinks with b. A size of at
        // least 1 over a divisor keeps a lower bound of 1.
        const auto up = [](Wide a, Wide b) { return (a + b - 1) / b; };
        out = {up(r[0].lo, r[1].hi), up(r[0].hi, r[1].lo)};
      } else {
        out = corners(r[0].lo / r[1].lo, r[0].lo / r[1].hi, r[0].hi / r[1].lo, r[0].hi / r[1].hi);
        out.hi += 1;
      }
      break;
    case Op::Mod:
      if (r[1].lo <= 0 || r[0].lo < 0) return std::nullopt;
      out = {0, std::min(r[0].hi, r[1].hi - 1)};
      break;
    case Op::Min: out = {std::min(r[0].lo, r[1].lo), std::min(r[0].hi, r[1].hi)}; break;
    case Op::Max: out = {std::max(r[0].lo, r[1].lo), std::max(r[0].hi, r[1].hi)}; break;
    case Op::BitXor:
    case Op::BitAnd:
      if (r[0].lo < 0 || r[1].lo < 0) return std::nullopt;
      out = {0, node.op == Op::BitAnd ? std::min(r[0].hi, r[1].hi) : pow2Above(std::max(r[0].hi, r[1].hi))};
      break;
    case Op::Shl:
    case Op::Shr:
      if (r[1].lo < 0 || r[1].hi > 62 || r[0].lo < 0) return std::nullopt;
      out = node.op == Op::Shl ? Range{r[0].lo << static_cast<int>(r[1].lo), r[0].hi << static_cast<int>(r[1].hi)}
                               : Range{r[0].lo >> static_cast<int>(r[1].hi), r[0].hi >> static_cast<int>(r[1].lo)};
      break;
    case Op::Select: out = {std::min(r[1].lo, r[2].lo), std::max(r[1].hi, r[2].hi)}; break;
    default: out = {0, 1}; break;  // comparisons and logical and
  }
  if (out.hi > kLimit || out.lo < -kLimit) return std::nullopt;
  return out;
}

}  // namespace

std::optional<int64_t> minValue(const Val& v, const std::map<std::string, int64_t>& max_of) {
  auto r = rangeOf(v, max_of);
  if (!r) return std::nullopt;
  return static_cast<int64_t>(r->lo);
}

std::optional<int64_t> maxValue(const Val& v, const std::map<std::string, int64_t>& max_of) {
  auto r = rangeOf(v, max_of);
  if (!r) return std::nullopt;
  return static_cast<int64_t>(r->hi);
}

}  // namespace tilegrid::ir
