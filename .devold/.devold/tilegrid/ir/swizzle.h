#pragma once
#include "tilegrid/ir/transform.h"

namespace tilegrid::ir {

// CuTe's Swizzle<B, M, S> on a 1-D index: x ^ ((x & yyy_mask) >> S), with a negative S shifting
// left. yyy_mask holds B bits starting at bit M + max(0, S); the bits it flips (zzz) start at
// M - min(0, S). With |S| >= B the two masks do not overlap and the map is its own inverse.
class Swizzle final : public Transform {
 public:
  Swizzle(const Val& extent, int bits, int base, int shift);

  std::string kind() const override { return "Swizzle"; }
  std::string params() const override;
  std::vector<Val> forward(const std::vector<Val>& inputs) const override;
  BackwardResult backward(const std::vector<Val>& outputs) const override;
  std::unique_ptr<Transform> clone() const override { return std::make_unique<Swizzle>(*this); }

  int bits() const { return bits_; }
  int base() const { return base_; }
  int shift() const { return shift_; }

  // The same map on plain integers, for callers that index outside the IR (and for tests).
  static int64_t apply(int64_t x, int bits, int base, int shift);
  // An extent this swizzle maps onto itself must be a multiple of this.
  static int64_t period(int bits, int base, int shift);
  // Rejects parameters outside CuTe's domain, naming the rule that failed.
  static void validate(int bits, int base, int shift);

 private:
  Val apply(const Val& x) const;
  int bits_, base_, shift_;
};

}  // namespace tilegrid::ir
