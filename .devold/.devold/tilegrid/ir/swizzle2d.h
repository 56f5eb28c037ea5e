#pragma once
#include "tilegrid/ir/transform.h"

namespace tilegrid::ir {

enum class Swizzle2DKind { XOR, CyclicShift, ZShape };

// Swizzle2D(x, y): (X, Y) -> (X, Y), x passes through and y is permuted per row. The backward
// rules (out -> in), with forward their exact inverses:
//   XOR          (x, x ^ y)          needs Y a power of two and X <= Y; its own inverse
//   CyclicShift  (x, (x + y) % Y)    forward is (x, (y - x) mod Y)
//   ZShape       (x, x odd ? Y-1-y : y)   its own inverse: odd rows run backwards
class Swizzle2D final : public Transform {
 public:
  Swizzle2D(const Val& x_extent, const Val& y_extent, Swizzle2DKind kind);

  std::string kind() const override { return "Swizzle2D"; }
  std::string params() const override;
  std::vector<Val> forward(const std::vector<Val>& inputs) const override;
  BackwardResult backward(const std::vector<Val>& outputs) const override;
  std::unique_ptr<Transform> clone() const override { return std::make_unique<Swizzle2D>(*this); }

  Swizzle2DKind swizzleKind() const { return kind_; }

 private:
  Swizzle2DKind kind_;
};

const char* toString(Swizzle2DKind kind);
// Parses "xor", "cyclic-shift", "zshape" (case-insensitive); throws UserError listing them otherwise.
Swizzle2DKind parseSwizzle2DKind(const std::string& text);

}  // namespace tilegrid::ir
