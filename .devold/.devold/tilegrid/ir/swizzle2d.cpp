#include "tilegrid/ir/swizzle2d.h"

#include <algorithm>
#include <cctype>

#include "tilegrid/ir/enum_names.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::ir {

Swizzle2D::Swizzle2D(const Val& x_extent, const Val& y_extent, Swizzle2DKind kind)
    : Transform({x_extent, y_extent}, {x_extent, y_extent}), kind_(kind) {
  if (kind == Swizzle2DKind::XOR) {
    auto x = x_extent.constValue();
    auto y = y_extent.constValue();
    TG_USER_CHECK(x && y) << "an XOR Swizzle2D needs constant extents, got (" << x_extent.toString() << ", "
                          << y_extent.toString() << ")";
    TG_USER_CHECK(*y >= 1 && (*y & (*y - 1)) == 0 && *x <= *y)
        << "an XOR Swizzle2D needs Y a power of two and X <= Y so that x ^ y stays in [0, Y), got X=" << *x
        << ", Y=" << *y;
  }
}

std::string Swizzle2D::params() const { return std::string("kind=") + toString(kind_); }

std::vector<Val> Swizzle2D::forward(const std::vector<Val>& inputs) const {
  checkArity(inputs, 2, "forward");
  const Val& x = inputs[0];
  const Val& y = inputs[1];
  const Val& Y = inputExtents()[1];
  switch (kind_) {
    case Swizzle2DKind::XOR: return {x, x ^ y};
    case Swizzle2DKind::CyclicShift: return {x, (y + Y - x % Y) % Y};
    case Swizzle2DKind::ZShape: return {x, select(eq(x % 2, 1), Y - 1 - y, y)};
  }
  TG_INTERNAL_ERROR() << "unknown Swizzle2D kind";
  return {};
}

BackwardResult Swizzle2D::backward(const std::vector<Val>& outputs) const {
  checkArity(outputs, 2, "backward");
  const Val& x = outputs[0];
  const Val& y = outputs[1];
  const Val& Y = inputExtents()[1];
  switch (kind_) {
    case Swizzle2DKind::XOR: return {{x, x ^ y}, {}};
    case Swizzle2DKind::CyclicShift: return {{x, (x + y) % Y}, {}};
    case Swizzle2DKind::ZShape: return {{x, select(eq(x % 2, 1), Y - 1 - y, y)}, {}};
  }
  TG_INTERNAL_ERROR() << "unknown Swizzle2D kind";
  return {};
}

const char* toString(Swizzle2DKind kind) {
  switch (kind) {
    case Swizzle2DKind::XOR: return "xor";
    case Swizzle2DKind::CyclicShift: return "cyclic-shift";
    case Swizzle2DKind::ZShape: return "zshape";
  }
  return "?";
}

Swizzle2DKind parseSwizzle2DKind(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return parseEnum(lower, {Swizzle2DKind::XOR, Swizzle2DKind::CyclicShift, Swizzle2DKind::ZShape},
                   [](Swizzle2DKind k) { return toString(k); }, "Swizzle2D kind");
}

}  // namespace tilegrid::ir
