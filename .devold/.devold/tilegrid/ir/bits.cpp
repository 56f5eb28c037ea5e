#include "tilegrid/ir/bits.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "tilegrid/ir/val_node.h"

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
    case Op::Mul: {
      if (const auto s = pow2(ops[1])) return (b[0] << *s) & coarse;
      if (const auto s = pow2(ops[0])) return (b[1] << *s) & coarse;
      // A value of 0 or 1 times anything: that thing's bits, or none.
      if (b[0] <= 1) return b[1] & coarse;
      if (b[1] <= 1) return b[0] & coarse;
      // Otherwise nothing below the product of the lowest bits either may have.
      if (b[0] == 0 || b[1] == 0) return uint64_t{0};
      const int low = std::countr_zero(b[0]) + std::countr_zero(b[1]);
      return low >= 64 ? uint64_t{0} : coarse & ~((uint64_t{1} << low) - 1);
    }
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

namespace {

bool disjoint(const Val& a, const Val& b, const std::map<std::string, int64_t>& max_of) {
  const auto pa = possibleBits(a, max_of), pb = possibleBits(b, max_of);
  return pa && pb && (*pa & *pb) == 0;
}

// a & m, distributed over the addends of a that share no bit (their sum is their OR).
Val andInto(const Val& a, const Val& m, const std::map<std::string, int64_t>& max_of) {
  if (disjoint(a, m, max_of)) return Val(0);
  if (a.op() == Op::Add) {
    const std::vector<Val> ops = a.operands();
    if (disjoint(ops[0], ops[1], max_of)) return andInto(ops[0], m, max_of) + andInto(ops[1], m, max_of);
  }
  return a & m;
}

// a ^ c, with every addend of a that shares no bit with the rest of a nor with c moved outside
// (it passes through the XOR untouched, and adding it sets bits nothing else has).
Val xorInto(const Val& a, const Val& c, const std::map<std::string, int64_t>& max_of) {
  if (disjoint(a, c, max_of)) return a + c;
  if (a.op() == Op::Add) {
    const std::vector<Val> ops = a.operands();
    if (disjoint(ops[0], ops[1], max_of)) {
      if (disjoint(ops[0], c, max_of)) return ops[0] + xorInto(ops[1], c, max_of);
      if (disjoint(ops[1], c, max_of)) return xorInto(ops[0], c, max_of) + ops[1];
    }
  }
  return a ^ c;
}

// v / d where v is provably a multiple of d (a constant, a product with such a constant factor, or a
// sum of multiples): the exact quotient. Nothing otherwise.
std::optional<Val> exactQuotient(const Val& v, int64_t d) {
  if (const auto c = v.constValue()) {
    if (*c % d == 0) return Val(*c / d);
    return std::nullopt;
  }
  const std::vector<Val> ops = v.operands();
  if (v.op() == Op::Mul) {
    for (size_t i = 0; i < 2; ++i) {
      if (const auto q = exactQuotient(ops[i], d)) return *q * ops[1 - i];
    }
  }
  if (v.op() == Op::Add) {
    const auto a = exactQuotient(ops[0], d), b = exactQuotient(ops[1], d);
    if (a && b) return *a + *b;
  }
  return std::nullopt;
}

// (p + q) / d and (p + q) % d for a non-negative multiple p of the constant d and a non-negative q:
// p / d + q / d and q % d. Nothing where that does not hold.
std::optional<Val> divisionOfSum(Op op, const Val& sum, const Val& divisor,
                                 const std::map<std::string, int64_t>& max_of) {
  const auto d = divisor.constValue();
  if (!d || *d <= 0 || sum.op() != Op::Add) return std::nullopt;
  const std::vector<Val> ops = sum.operands();
  for (size_t i = 0; i < 2; ++i) {
    const auto quotient = exactQuotient(ops[i], *d);
    const auto lo_p = minValue(ops[i], max_of), lo_q = minValue(ops[1 - i], max_of);
    if (!quotient || !lo_p || !lo_q || *lo_p < 0 || *lo_q < 0) continue;
    const Val rest = simplifyBits(rebuildOp(op, {ops[1 - i], divisor}), max_of);
    return op == Op::Div ? *quotient + rest : rest;
  }
  return std::nullopt;
}

}  // namespace

Val simplifyBits(const Val& v, const std::map<std::string, int64_t>& max_of) {
  const std::vector<Val> ops = v.operands();
  if (ops.empty()) return v;
  std::vector<Val> args;
  for (const Val& op : ops) args.push_back(simplifyBits(op, max_of));
  if (v.op() == Op::BitAnd) return andInto(args[0], args[1], max_of);
  if (v.op() == Op::BitXor) return xorInto(args[0], args[1], max_of);
  if (v.op() == Op::Div || v.op() == Op::Mod) {
    // A non-negative value below a positive divisor: the quotient is 0 and the remainder the value.
    const auto lo = minValue(args[0], max_of), hi = maxValue(args[0], max_of), d = minValue(args[1], max_of);
    if (lo && hi && d && *lo >= 0 && *d > 0 && *hi < *d) return v.op() == Op::Div ? Val(0) : args[0];
    if (const auto split = divisionOfSum(v.op(), args[0], args[1], max_of)) return *split;
  }
  return rebuildOp(v.op(), args);
}

std::optional<XorForm> xorSplit(const Val& v, const std::string& var, const std::map<std::string, int64_t>& max_of) {
  const std::vector<std::string> vars = v.freeVars();
  if (std::find(vars.begin(), vars.end(), var) == vars.end()) return XorForm{v, Val(0)};
  if (vars.size() == 1) return XorForm{Val(0), v};
  if (v.op() != Op::Add && v.op() != Op::BitXor) return std::nullopt;
  const std::vector<Val> ops = v.operands();
  // A sum of addends with no bit in common is their XOR.
  if (v.op() == Op::Add && !disjoint(ops[0], ops[1], max_of)) return std::nullopt;
  const auto a = xorSplit(ops[0], var, max_of), b = xorSplit(ops[1], var, max_of);
  if (!a || !b) return std::nullopt;
  return XorForm{a->base ^ b->base, a->part ^ b->part};
}

}  // namespace tilegrid::ir
