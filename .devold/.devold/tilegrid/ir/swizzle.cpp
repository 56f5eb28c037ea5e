#include "tilegrid/ir/swizzle.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tilegrid/ir/check.h"

namespace tilegrid::ir {
namespace {

int64_t yyyMask(int bits, int base, int shift) { return ((int64_t{1} << bits) - 1) << (base + std::max(0, shift)); }

}  // namespace

void Swizzle::validate(int bits, int base, int shift) {
  TG_USER_CHECK(bits >= 0 && base >= 0) << "Swizzle<B, M, S> needs B >= 0 and M >= 0, got B=" << bits
                                          << ", M=" << base;
  TG_USER_CHECK(std::abs(shift) >= bits) << "Swizzle<B, M, S> needs |S| >= B so that it is its own inverse, got B="
                                          << bits << ", S=" << shift;
  TG_USER_CHECK(base + std::abs(shift) + bits <= 40)
      << "Swizzle<" << bits << ", " << base << ", " << shift << "> touches bits above 40: M + |S| + B must be <= 40";
}

int64_t Swizzle::period(int bits, int base, int shift) {
  // The flipped (zzz) bits end at bit M - min(0, S) + B; below that the map stays inside each
  // aligned block of this size.
  return int64_t{1} << (base - std::min(0, shift) + bits);
}

int64_t Swizzle::apply(int64_t x, int bits, int base, int shift) {
  const int64_t selected = x & yyyMask(bits, base, shift);
  return x ^ (shift >= 0 ? selected >> shift : selected << -shift);
}

Swizzle::Swizzle(const Val& extent, int bits, int base, int shift)
    : Transform({extent}, {extent}), bits_(bits), base_(base), shift_(shift) {
  validate(bits, base, shift);
  auto n = extent.constValue();
  TG_USER_CHECK(n.has_value()) << "Swizzle needs a constant extent, got " << extent.toString();
  const int64_t p = period(bits, base, shift);
  // An extent smaller than the yyy bits never sets them: the map is then the identity, still exact.
  const bool identity = *n <= (int64_t{1} << (base + std::max(0, shift)));
  TG_USER_CHECK(identity || *n % p == 0) << "Swizzle<" << bits << ", " << base << ", " << shift << "> maps [0, "
                                         << *n << ") outside itself: the extent must be a multiple of " << p;
}

std::string Swizzle::params() const {
  return "B=" + std::to_string(bits_) + ", M=" + std::to_string(base_) + ", S=" + std::to_string(shift_);
}

Val Swizzle::apply(const Val& x) const {
  if (bits_ == 0) return x;
  const Val selected = x & Val(yyyMask(bits_, base_, shift_));
  return x ^ (shift_ >= 0 ? selected >> Val(shift_) : selected << Val(-shift_));
}

std::vector<Val> Swizzle::forward(const std::vector<Val>& inputs) const {
  checkArity(inputs, 1, "forward");
  return {apply(inputs[0])};
}

BackwardResult Swizzle::backward(const std::vector<Val>& outputs) const {
  checkArity(outputs, 1, "backward");
  return {{apply(outputs[0])}, {}};
}

}  // namespace tilegrid::ir
