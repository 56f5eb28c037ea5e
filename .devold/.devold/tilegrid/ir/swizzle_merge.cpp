#include "tilegrid/ir/swizzle_merge.h"

#include <utility>

#include "tilegrid/ir/check.h"

namespace tilegrid::ir {
namespace {

// Height of megarow `megarow` when an extent R is cut into megarows of f: f, except the last
// megarow of a non-divisible R, which has R % f rows. That megarow exists only where R % f > 0; the
// max says so to range analysis (a symbolic R's height is then a divisor of at least 1), and folds
// away for a constant R.
Val megarowHeight(const Val& R, const Val& f, const Val& megarow) {
  const auto r = R.constValue(), fc = f.constValue();
  if (r && fc && *r % *fc == 0) return f;
  return select(eq(megarow, R / f), max(R - (R / f) * f, Val(1)), f);
}

// Factor #(i + 1), a constant. A factor past any grid extent groups nothing more, and a bounded one
// keeps C * factor, the megarow size the index math divides by, within 64 bits.
void checkConstantFactor(size_t i, int64_t f) {
  TG_USER_CHECK(f >= 1 && f <= kMaxSwizzleFactor)
      << "SwizzleMerge factor #" << (i + 1) << " is " << f << ": factors must be >= 1 and <= " << kMaxSwizzleFactor;
}

// As validateSwizzleFactors, for factors that may be problem parameters; any other symbolic factor
// is rejected.
void validateFactorVals(const std::vector<Val>& factors) {
  TG_USER_CHECK(!factors.empty()) << "SwizzleMerge needs at least one factor";
  for (size_t i = 0; i < factors.size(); ++i) {
    if (const auto f = factors[i].constValue()) {
      checkConstantFactor(i, *f);
    } else {
      TG_USER_CHECK(factors[i].op() == Op::Var && factors[i].varKind() == VarKind::Param)
          << "SwizzleMerge factor #" << (i + 1) << " is " << factors[i].toString()
          << ": a factor is a constant or a problem parameter (a size, at least 1)";
    }
  }
}

}  // namespace

void validateSwizzleFactors(const std::vector<int64_t>& factors) {
  TG_USER_CHECK(!factors.empty()) << "SwizzleMerge needs at least one factor";
  for (size_t i = 0; i < factors.size(); ++i) checkConstantFactor(i, factors[i]);
}

SwizzleMerge::SwizzleMerge(const Val& x_extent, const Val& y_extent, std::vector<Val> factors)
    : Transform({x_extent, y_extent}, {x_extent * y_extent}), factors_(std::move(factors)) {
  validateFactorVals(factors_);
}

std::vector<Val> constantFactors(const std::vector<int64_t>& factors) { return {factors.begin(), factors.end()}; }

std::string SwizzleMerge::params() const {
  std::string text = "factors={";
  for (size_t i = 0; i < factors_.size(); ++i) text += (i ? ", " : "") + factors_[i].toString();
  return text + "}";
}

BackwardResult SwizzleMerge::backward(const std::vector<Val>& outputs) const {
  checkArity(outputs, 1, "backward");
  // coord[0] is x, coord[1] is y; `r_dim` says which of them the current level's R runs along.
  Val coord[2] = {Val(0), Val(0)};
  int r_dim = 0;
  Val R = inputExtents()[0];
  Val C = inputExtents()[1];
  Val pos = outputs[0];
  for (size_t level = 0; level < factors_.size(); ++level) {
    const Val& f = factors_[level];
    const Val megarow = pos / (C * f);
    const Val mpos = pos - megarow * (C * f);
    const Val height = megarowHeight(R, f, megarow);
    coord[r_dim] = coord[r_dim] + megarow * f;
    if (level + 1 == factors_.size()) {
      coord[r_dim] = coord[r_dim] + mpos % height;
      coord[1 - r_dim] = coord[1 - r_dim] + mpos / height;
    } else {
      R = std::exchange(C, height);
      pos = mpos;
      r_dim = 1 - r_dim;
    }
  }
  return {{coord[0], coord[1]}, {}};
}

std::vector<Val> SwizzleMerge::forward(const std::vector<Val>& inputs) const {
  checkArity(inputs, 2, "forward");
  // Walk down the levels as backward() does, remembering each level's megarow and row length C,
  // then rebuild the linear index from the innermost level outwards.
  struct Level {
    Val megarow;
    Val row_length;  // C * f: indices per megarow
  };
  std::vector<Level> levels;
  Val R = inputExtents()[0];
  Val C = inputExtents()[1];
  Val r = inputs[0];  // coordinate along R
  Val c = inputs[1];  // coordinate along C
  Val innermost;
  for (size_t level = 0; level < factors_.size(); ++level) {
    const Val& f = factors_[level];
    const Val megarow = r / f;
    const Val height = megarowHeight(R, f, megarow);
    const Val r_local = r - megarow * f;
    levels.push_back({megarow, C * f});
    if (level + 1 == factors_.size()) {
      innermost = c * height + r_local;
    } else {
      R = std::exchange(C, height);
      r = std::exchange(c, r_local);
    }
  }
  Val pos = innermost;
  for (auto it = levels.rbegin(); it != levels.rend(); ++it) pos = it->megarow * it->row_length + pos;
  return {pos};
}

}  // namespace tilegrid::ir
