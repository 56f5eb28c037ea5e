#include <gtest/gtest.h>

#include <random>
#include <set>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/swizzle_merge.h"
#include "support/seed_formulas.h"
#include "support/transform_maps.h"

namespace tilegrid::ir {
namespace {

using testing::compileMaps;

TEST(SwizzleMerge, OneFactorEqualsSeedFormulaAndVisitsEveryTileOnce) {
  const Val M = Val::param("M"), N = Val::param("N");
  for (int64_t f = 1; f <= 9; ++f) {
    // Symbolic extents: the expression codegen prints when M and N are only known at launch.
    SwizzleMerge sm(M, N, {f});
    const auto maps = compileMaps(sm, {"M", "N"});
    for (int64_t m = 1; m <= 40; ++m) {
      for (int64_t n = 1; n <= 40; ++n) {
        std::vector<char> seen(static_cast<size_t>(m * n), 0);
        for (int64_t i = 0; i < m * n; ++i) {
          const auto pq = maps.backward({i, m, n});
          const auto [p, q] = testing::swizzleMergeSeed(i, m, n, f);
          ASSERT_EQ(pq[0], p) << "M=" << m << " N=" << n << " f=" << f << " i=" << i;
          ASSERT_EQ(pq[1], q) << "M=" << m << " N=" << n << " f=" << f << " i=" << i;
          ASSERT_TRUE(p >= 0 && p < m && q >= 0 && q < n);
          ASSERT_EQ(seen[static_cast<size_t>(p * n + q)]++, 0) << "tile visited twice";
          ASSERT_EQ(maps.forward({p, q, m, n})[0], i);
        }
      }
    }
  }
}

TEST(SwizzleMerge, ExtentIsExactlyMTimesN) {
  for (int64_t m = 1; m <= 40; ++m) {
    for (int64_t n = 1; n <= 40; ++n) {
      for (int64_t f = 1; f <= 9; ++f) {
        ASSERT_EQ(SwizzleMerge(Val(m), Val(n), {f}).outputExtents()[0].constValue(), m * n);
      }
    }
  }
  EXPECT_TRUE(SwizzleMerge(Val::param("M"), Val::param("N"), {4}).outputExtents()[0].sameAs(Val::param("M") * Val::param("N")));
}

TEST(SwizzleMerge, ConstantExtentsFoldToTheSameMap) {
  for (int64_t m = 1; m <= 12; ++m) {
    for (int64_t n = 1; n <= 12; ++n) {
      for (int64_t f = 1; f <= 5; ++f) {
        const auto maps = compileMaps(SwizzleMerge(Val(m), Val(n), {f}));
        for (int64_t i = 0; i < m * n; ++i) {
          const auto [p, q] = testing::swizzleMergeSeed(i, m, n, f);
          ASSERT_EQ(maps.backward({i}), (std::vector<int64_t>{p, q}));
        }
      }
    }
  }
}

// A bijection onto [0, M) x [0, N), with forward its inverse.
void checkBijection(const std::vector<int64_t>& factors, int64_t m, int64_t n, const testing::TransformMaps& maps) {
  std::vector<char> seen(static_cast<size_t>(m * n), 0);
  for (int64_t i = 0; i < m * n; ++i) {
    const auto pq = maps.backward({i, m, n});
    ASSERT_TRUE(pq[0] >= 0 && pq[0] < m && pq[1] >= 0 && pq[1] < n)
        << "out of range: M=" << m << " N=" << n << " i=" << i << " factors[0]=" << factors[0];
    ASSERT_EQ(seen[static_cast<size_t>(pq[0] * n + pq[1])]++, 0) << "visited twice";
    ASSERT_EQ(maps.forward({pq[0], pq[1], m, n})[0], i);
  }
}

TEST(SwizzleMerge, FactorListsAreBijections) {
  std::mt19937 rng(3942);
  const Val M = Val::param("M"), N = Val::param("N");
  for (int trial = 0; trial < 200; ++trial) {
    const int levels = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<int64_t> factors;
    for (int l = 0; l < levels; ++l) factors.push_back(std::uniform_int_distribution<int64_t>(1, 9)(rng));
    const auto maps = compileMaps(SwizzleMerge(M, N, constantFactors(factors)), {"M", "N"});
    for (int shape = 0; shape < 10; ++shape) {
      const int64_t m = std::uniform_int_distribution<int64_t>(1, 30)(rng);
      const int64_t n = std::uniform_int_distribution<int64_t>(1, 30)(rng);
      checkBijection(factors, m, n, maps);
    }
  }
}

// A factor read at launch (a problem parameter) gives, for each value bound, the traversal of that
// constant factor: every index of every small grid.
TEST(SwizzleMerge, ParameterFactorEqualsEachConstantFactor) {
  const Val M = Val::param("M"), N = Val::param("N"), F = Val::param("F");
  const auto symbolic = compileMaps(SwizzleMerge(M, N, {F}), {"M", "N", "F"});
  for (int64_t f = 1; f <= 12; ++f) {
    const auto constant = compileMaps(SwizzleMerge(M, N, {f}), {"M", "N"});
    for (int64_t m = 1; m <= 13; ++m) {
      for (int64_t n = 1; n <= 13; ++n) {
        for (int64_t i = 0; i < m * n; ++i) {
          ASSERT_EQ(symbolic.backward({i, m, n, f}), constant.backward({i, m, n})) << "f=" << f << " " << m << "x" << n;
        }
      }
    }
  }
  EXPECT_THROW(SwizzleMerge(M, N, {Val::loopIndex("i")}), UserError);
}

TEST(SwizzleMerge, TrailingFactorOneChangesNothing) {
  const Val M = Val::param("M"), N = Val::param("N");
  for (int64_t f = 1; f <= 6; ++f) {
    const auto one = compileMaps(SwizzleMerge(M, N, {f}), {"M", "N"});
    const auto two = compileMaps(SwizzleMerge(M, N, {f, 1}), {"M", "N"});
    for (int64_t m = 1; m <= 15; ++m) {
      for (int64_t n = 1; n <= 15; ++n) {
        for (int64_t i = 0; i < m * n; ++i) ASSERT_EQ(one.backward({i, m, n}), two.backward({i, m, n}));
      }
    }
  }
}

TEST(SwizzleMerge, SecondFactorGroupsTheOtherDimension) {
  // 4 x 6 grid, factors {2, 3}: megarows of 2 rows; inside one, blocks of 3 columns walked with the
  // column index fastest. The first block covers rows 0-1, columns 0-2.
  const auto maps = compileMaps(SwizzleMerge(Val(4), Val(6), {2, 3}));
  std::vector<std::vector<int64_t>> first;
  for (int64_t i = 0; i < 6; ++i) first.push_back(maps.backward({i}));
  EXPECT_EQ(first, (std::vector<std::vector<int64_t>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
}

TEST(SwizzleMerge, RejectsBadFactors) {
  EXPECT_THROW(SwizzleMerge(Val(4), Val(4), {}), UserError);
  EXPECT_THROW(SwizzleMerge(Val(4), Val(4), {0}), UserError);
  EXPECT_THROW(SwizzleMerge(Val(4), Val(4), {4, -1}), UserError);
  try {
    SwizzleMerge(Val(4), Val(4), {4, 0});
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("factor #2 is 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilegrid::ir
