#pragma once
// Bit-level algebra on index math, in the spirit of CuTe's MixedBits: which bits a value can have
// set when each variable ranges over [0, max], and the rewrites that knowledge allows. A swizzled
// offset x ^ ((x & mask) >> shift) whose masked bits are provably clear is x itself, and an XOR of
// two values with no bit in common is their sum; what remains is plain arithmetic that
// ir::affineIn can take apart into a static step and a dynamic base.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tilegrid/ir/val.h"

namespace tilegrid::ir {

// A mask of every bit `v` can have set when each variable ranges over [0, max_of[name]] (a problem
// parameter over [1, max]). Nothing where `v` may be negative or a variable has no range.
std::optional<uint64_t> possibleBits(const Val& v, const std::map<std::string, int64_t>& max_of);

// `v` rebuilt bottom-up with rules that hold over those ranges ("disjoint": no possible bit in
// common, so that a sum of disjoint values is their OR and their XOR):
//   a & b -> 0                    where a and b are disjoint;
//   (p + q) & m -> p & m + q & m  where p and q are disjoint;
//   a ^ b -> a + b                where a and b are disjoint;
//   (p + q) ^ c -> p + (q ^ c)    where p is disjoint from q and from c (either addend);
//   a / d -> 0, a % d -> a        where 0 <= a < d;
//   (p + q) / d -> p / d + q / d, (p + q) % d -> q % d
//                                 where d is a constant, p a multiple of it, and p, q >= 0.
// Every other node is rebuilt as it was (and simplifies as built).
Val simplifyBits(const Val& v, const std::map<std::string, int64_t>& max_of);

// v == base ^ part, with `part` holding only `var` and `base` free of it: the split of a swizzled
// offset into what changes with a compile-time step and what a thread computes once. Sums split
// where their addends are disjoint. Nothing where `var` cannot be separated so.
struct XorForm {
  Val base, part;
};
std::optional<XorForm> xorSplit(const Val& v, const std::string& var, const std::map<std::string, int64_t>& max_of);

}  // namespace tilegrid::ir
