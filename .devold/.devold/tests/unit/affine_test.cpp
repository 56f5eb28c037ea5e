// ir::affineIn: where it answers v == base + step * x, the identity holds at every point of a whole
// small domain; where x sits inside a division, a modulo or a product with itself, it answers nothing.
#include <gtest/gtest.h>

#include "tilegrid/ir/affine.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/scheduler/kernel_domains.h"

namespace tilegrid::ir {
namespace {

const Val x = Val::loopIndex("x"), y = Val::loopIndex("y"), ld = Val::param("ld");

// base + step * x == v for x, y in [0, 24) and ld in [1, 9].
void expectIdentity(const Val& v) {
  const auto form = affineIn(v, "x");
  ASSERT_TRUE(form.has_value()) << v.toString();
  EXPECT_EQ(affineIn(form->base, "x")->step.constValue(), 0) << "the base holds x: " << form->base.toString();
  for (int64_t xv = 0; xv < 24; ++xv) {
    for (int64_t yv = 0; yv < 24; ++yv) {
      for (int64_t lv = 1; lv <= 9; ++lv) {
        const Bindings b{{"x", xv}, {"y", yv}, {"ld", lv}};
        EXPECT_EQ(evaluate(v, b), evaluate(form->base, b) + evaluate(form->step, b) * xv) << v.toString();
      }
    }
  }
}

TEST(Affine, DecomposesSumsDifferencesAndProductsExactly) {
  expectIdentity(x);
  expectIdentity(x * 3 + y);
  expectIdentity((x + y) * 5 - y / 3);
  expectIdentity(y * ld + x);
  expectIdentity((x - 2) * ld + (y % 4) * 7);
  expectIdentity(y / 2 + x * ld * 2);
  EXPECT_EQ(affineIn(x * 3 + y, "x")->step.constValue(), 3);
  EXPECT_EQ(affineIn(y * 9, "x")->step.constValue(), 0);
}

TEST(Affine, RefusesWhatIsNotAffine) {
  EXPECT_FALSE(affineIn(x / 4, "x"));
  EXPECT_FALSE(affineIn(x % 4 + y, "x"));
  EXPECT_FALSE(affineIn(x * x, "x"));
  EXPECT_FALSE(affineIn(x * (y + x), "x"));
  EXPECT_FALSE(affineIn(x ^ y, "x"));
  EXPECT_FALSE(affineIn(select(x < y, x, y), "x"));
}

// A global matrix steps by 1 along its contiguous axis and by its leading dimension along the other,
// in both storage orders, with the leading dimension a constant or read at launch.
TEST(Affine, GlobalMatricesStepByOneAndByTheirLeadingDimension) {
  for (const auto major : {scheduler::Major::K, scheduler::Major::MN}) {
    for (const Val& lead : {Val(40), ld}) {
      const TensorDomain gmem =
          scheduler::buildGlobalMatrix("gmem", {"mn", Val(8)}, {"k", Val(8)}, major, lead);
      Indexer indexer(gmem);
      const IndexResult alloc = indexer.allocationIndex({Val::loopIndex("x0"), Val::loopIndex("x1")});
      const Val offset = indexer.linearize(gmem.allocation(), alloc.indices);
      const auto along_mn = affineIn(offset, "x0"), along_k = affineIn(offset, "x1");
      ASSERT_TRUE(along_mn && along_k);
      const Val& contiguous = major == scheduler::Major::K ? along_k->step : along_mn->step;
      const Val& strided = major == scheduler::Major::K ? along_mn->step : along_k->step;
      EXPECT_EQ(contiguous.constValue(), 1);
      EXPECT_TRUE(strided.sameAs(lead)) << strided.toString();
    }
  }
}

}  // namespace
}  // namespace tilegrid::ir
