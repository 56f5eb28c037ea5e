#include "ir/bits.h"

#include <bit>
#include <vector>

#include "ir/val_node.h"

namespace tilegrid::ir {
namespace {

// Every bit below and at the highest set bit of `max`.
uint64_t bitsUpTo(uint64_t max) { return max == 0 ? 0 : ~uint64_t{0} >> std::countl_zero(max); }

// Bits a sum of values with these possible bits can have: their union where they do not overlap
// (no carry), else everything from the lowest possible bit up to the sum's highest.
uint64_t sumBits(uint64_t a, uint64_t b) {
  if ((a & b) == 0) return a | b;
  const uint64_t low = (a | b) & (~(a | b) + 1);  // the lowest bit either may have
  return bitsUpTo(bitsUpTo(a) + bitsUpTo(b)) & ~(low - 1);
}

std::optional<uint64_t> bitsOf(const Val& v, const std::map<std::string, int64_t>& max_of) {
  if (const auto c = v.constValue()) {
    if (*c < 0) return std::nullopt;
    return static_cast<uint64_t>(*c);
  }
  const auto max = maxValue(v, max_of), min = minValue(v, max_of);
  if (!max || !min || *min < 0) return std::nullopt;
  const uint64_t coarse = bitsUpTo(static_cast<uint64_t>(*max));
  const std::vector<Val> ops = v.operands();
  std::vector<uint64_t> b;
  for (const Val& op : ops) {
    const auto bits = bitsOf(op, max_of);
    if (!bits) return coarse;
    b.push_back(*bits);
  }
  const auto shift = [&]() -> std::optional<int> {
    const auto s = ops[1].constValue();
    return s && *s >= 0 && *s < 63 ? std::optional<int>(static_cast<int>(*s)) : std::nullopt;
  };
  // A product by a constant power of two shifts the bits; any other keeps the coarse bound.
  const auto pow2 = [](const Val& x) -> std::optional<int> {
    const auto c = x.constValue();
    return c && *c > 0 && std::has_single_bit(static_cast<uint64_t>(*c))
               ? std::optional<int>(std::countr_zero(static_cast<uint64_t>(*c)))
               : std::nullopt;
  };
  switch (v.op()) {
    case Op::Add: return sumBits(b[0], b[1]) & coarse;
    case Op::Mul:
      if (const auto s = pow2(ops[1])) return (b[0] << *s) & coarse;
      if (const auto s = pow2(ops[0])) return (b[1] << *s) & coarse;
      return coarse;
    case Op::BitAnd: return b[0] & b[1];
    case Op::BitXor: return b[0] | b[1];
    case Op::Shl:
      if (const auto s = shift()) return (b[0] << *s) & coarse;
      return coarse;
    case Op::Shr:
      if (const auto s = shift()) return b[0] >> *s;
      return coarse;
    case Op::Div:
      if (const auto s = pow2(ops[1])) return b[0] >> *s;
      return coarse;
    case Op::Mod:
      if (const auto s = pow2(ops[1])) return b[0] & ((uint64_t{1} << *s) - 1);
      return coarse;
    default: return coarse;
  }
}

}  // namespace

std::optional<uint64_t> possibleBits(const Val& v, const std::map<std::string, int64_t>& max_of) {
  return bitsOf(v, max_of);
}

Val simplifyBits(const Val& v, const std::map<std::string, int64_t>& max_of) {
  const std::vector<Val> ops = v.operands();
  if (ops.empty()) return v;
  std::vector<Val> args;
  for (const Val& op : ops) args.push_back(simplifyBits(op, max_of));
  if (v.op() == Op::BitAnd || v.op() == Op::BitXor) {
    const auto a = possibleBits(args[0], max_of), b = possibleBits(args[1], max_of);
    if (a && b && (*a & *b) == 0) return v.op() == Op::BitAnd ? Val(0) : args[0] + args[1];
  }
  if (v.op() == Op::Div || v.op() == Op::Mod) {
    // A non-negative value below a positive divisor: the quotient is 0 and the remainder the value.
    const auto lo = minValue(args[0], max_of), hi = maxValue(args[0], max_of), d = minValue(args[1], max_of);
    if (lo && hi && d && *lo >= 0 && *d > 0 && *hi < *d) return v.op() == Op::Div ? Val(0) : args[0];
  }
  return rebuildOp(v.op(), args);
}

}  // namespace tilegrid::ir
