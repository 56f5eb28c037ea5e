// Property fuzzing of the IR: random transform sequences (split, merge, reorder, swizzle, swizzle2d,
// swizzleMerge) on random extents. For every loop index of the result, the Indexer's loop -> logical
// mapping and its predicate must name each logical index exactly once: where the transforms are
// bijective the predicate is always true, and where they overhang it cuts away exactly the overhang.
// Transforms a domain cannot take must be refused with a UserError, never an InternalError.
#include <gtest/gtest.h>

#include <random>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/ir/swizzle_merge.h"
#include "support/fuzz_budget.h"

namespace tilegrid::ir {
namespace {

std::string describe(const TensorDomain& td) { return td.toString(); }

// One random scheduling call on `td`'s loop domain; returns what it tried.
std::string randomTransform(TensorDomain& td, std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const int n = static_cast<int>(td.nDims());
  const int a = static_cast<int>(pick(0, n - 1));
  int b = static_cast<int>(pick(0, n - 1));
  if (n >= 2 && b == a) b = (a + 1) % n;
  switch (pick(0, 5)) {
    case 0: {
      const int64_t f = pick(1, 5);
      const bool inner = pick(0, 1) == 1;
      td.split(a, Val(f), inner);
      return "split(" + std::to_string(a) + ", " + std::to_string(f) + (inner ? ")" : ", outer)");
    }
    case 1:
      if (n < 2) return "nothing";
      td.merge(a, b);
      return "merge(" + std::to_string(a) + ", " + std::to_string(b) + ")";
    case 2: {
      std::map<int, int> order;
      std::vector<int> targets(static_cast<size_t>(n));
      std::iota(targets.begin(), targets.end(), 0);
      std::shuffle(targets.begin(), targets.end(), rng);
      for (int i = 0; i < n; ++i) order[i] = targets[static_cast<size_t>(i)];
      td.reorder(order);
      return "reorder";
    }
    case 3: {
      const int bits = static_cast<int>(pick(0, 3)), base = static_cast<int>(pick(0, 2)), shift = static_cast<int>(pick(0, 4));
      td.swizzle(a, bits, base, shift);
      return "swizzle(" + std::to_string(a) + ", " + std::to_string(bits) + ", " + std::to_string(base) + ", " +
             std::to_string(shift) + ")";
    }
    case 4: {
      if (n < 2) return "nothing";
      const auto kind = static_cast<Swizzle2DKind>(pick(0, 2));
      td.swizzle2d(a, b, kind);
      return std::string("swizzle2d(") + std::to_string(a) + ", " + std::to_string(b) + ", " + toString(kind) + ")";
    }
    default: {
      if (n < 2) return "nothing";
      std::vector<int64_t> factors(static_cast<size_t>(pick(1, 2)));
      for (int64_t& f : factors) f = pick(1, 4);
      td.swizzleMerge(a, b, constantFactors(factors));
      return "swizzleMerge(" + std::to_string(a) + ", " + std::to_string(b) + ")";
    }
  }
}

TEST(IrPropertyFuzz, LoopToLogicalCoversEveryIndexOnceAndPredicatesCutExactlyTheOverhang) {
  const testing::FuzzBudget budget("IrPropertyFuzz", 4.0);
  std::mt19937_64 rng(budget.seed());
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int64_t trials = 0, refused = 0, overhanging = 0;
  while (budget.more()) {
    ++trials;
    const int rank = static_cast<int>(pick(1, 3));
    std::vector<AxisSpec> axes;
    std::vector<int64_t> extents;
    for (int i = 0; i < rank; ++i) {
      extents.push_back(pick(1, 12));
      axes.push_back({"x" + std::to_string(i), Val(extents.back())});
    }
    TensorDomain td("t", axes);
    std::string history;
    for (int64_t steps = pick(1, 5); steps > 0; --steps) {
      try {
        history += randomTransform(td, rng) + "; ";
      } catch (const UserError&) {
        ++refused;  // not every transform fits every domain; refusing clearly is correct
        history += "(refused); ";
      }
    }
    SCOPED_TRACE("seed " + std::to_string(budget.seed()) + ", trial " + std::to_string(trials) + ": " + history + "\n" +
                 describe(td));
    std::vector<int64_t> loop_extents;
    int64_t loop_points = 1, logical_points = 1;
    for (size_t i = 0; i < td.nDims(); ++i) {
      const auto e = td.axis(static_cast<int>(i)).extent.constValue();
      ASSERT_TRUE(e.has_value()) << "a constant domain has a symbolic loop extent";
      loop_extents.push_back(*e);
      loop_points *= *e;
    }
    for (int64_t e : extents) logical_points *= e;
    if (loop_points > 20000) continue;
    overhanging += loop_points > logical_points;

    const Indexer indexer(td);
    std::vector<Val> loop_vars;
    for (size_t i = 0; i < td.nDims(); ++i) loop_vars.push_back(Val::loopIndex("l" + std::to_string(i)));
    const IndexResult result = indexer.logicalIndex(loop_vars);
    ASSERT_EQ(result.indices.size(), extents.size());
    const Val predicate = result.predicate();

    std::vector<int> hits(static_cast<size_t>(logical_points), 0);
    int64_t valid_points = 0;
    std::vector<int64_t> at(td.nDims(), 0);
    for (int64_t point = 0; point < loop_points; ++point) {
      Bindings b;
      for (size_t i = 0; i < at.size(); ++i) b.set("l" + std::to_string(i), at[i]);
      if (evaluate(predicate, b) != 0) {
        ++valid_points;
        int64_t linear = 0;
        for (size_t d = 0; d < extents.size(); ++d) {
          const int64_t v = evaluate(result.indices[d], b);
          ASSERT_TRUE(v >= 0 && v < extents[d]) << "logical index " << v << " of axis " << d << " is out of [0, "
                                                << extents[d] << ") with the predicate true";
          linear = linear * extents[d] + v;
        }
        ++hits[static_cast<size_t>(linear)];
      }
      for (size_t i = at.size(); i-- > 0;) {
        if (++at[i] < loop_extents[i]) break;
        at[i] = 0;
      }
    }
    ASSERT_EQ(valid_points, logical_points) << "the predicate keeps " << valid_points << " of " << loop_points
                                            << " loop points for " << logical_points << " logical ones";
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], 1) << "logical point " << i;
  }
  std::cout << trials << " random schedules, " << overhanging << " with overhang, " << refused
            << " transforms refused with a UserError\n";
  EXPECT_GT(trials, 50);
}

}  // namespace
}  // namespace tilegrid::ir
