// Rewriting and bounding Vals: substitution, and the interval analysis codegen uses to decide
// whether an index needs 64-bit arithmetic.
#include <algorithm>
#include <limits>

#include "ir/error.h"
#include "ir/val.h"
#include "ir/val_node.h"

namespace tilegrid::ir {

Val substitute(const Val& v, const std::map<std::string, Val>& replacements) {
  const ValNode& node = *v.node();
  if (node.op == Op::Var) {
    auto it = replacements.find(node.name);
    return it == replacements.end() ? v : it->second;
  }
  if (node.args.empty()) return v;
  std::vector<Val> args;
  for (const Val& a : node.args) args.push_back(substitute(a, replacements));
  switch (node.op) {
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
  TG_INTERNAL_ERROR() << "substitute: unhandled op " << opName(node.op);
  return v;
}

namespace {

// Bounds of products of two int64 bounds fit in 128 bits; anything past int64 is reported as unknown.
__extension__ typedef __int128 Wide;

struct Range {
  Wide lo, hi;
};

constexpr Wide kLimit = static_cast<Wide>(std::numeric_limits<int64_t>::max());

std::optional<Range> rangeOf(const Val& v, const std::map<std::string, int64_t>& max_of) {
  const ValNode& node = *v.node();
  if (node.op == Op::Const) return Range{node.value, node.value};
  if (node.op == Op::Var) {
    auto it = max_of.find(node.name);
    if (it == max_of.end()) return std::nullopt;
    return Range{0, it->second};
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
      break;
    case Op::Div:
    case Op::CeilDiv:
      if (r[1].lo <= 0) return std::nullopt;
      out = corners(r[0].lo / r[1].lo, r[0].lo / r[1].hi, r[0].hi / r[1].lo, r[0].hi / r[1].hi);
      if (node.op == Op::CeilDiv) out.hi += 1;
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

std::optional<int64_t> maxValue(const Val& v, const std::map<std::string, int64_t>& max_of) {
  auto r = rangeOf(v, max_of);
  if (!r) return std::nullopt;
  return static_cast<int64_t>(r->hi);
}

}  // namespace tilegrid::ir
