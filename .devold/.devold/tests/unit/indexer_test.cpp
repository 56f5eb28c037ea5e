#include <gtest/gtest.h>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/ir/swizzle.h"
#include "support/c_expr.h"
#include "support/seed_formulas.h"

namespace tilegrid::ir {
namespace {

TEST(Indexer, SwizzleMergeTileGridBoundToBlockIdxPrintsTheReferenceTile) {
  for (int64_t m : {1, 3, 10, 13}) {
    for (int64_t n : {1, 7, 9}) {
      for (int64_t f : {1, 2, 4, 5}) {
        TensorDomain grid("tile_grid", {{"tile_m", Val(m)}, {"tile_n", Val(n)}});
        grid.swizzleMerge(0, 1, {f}).parallelize(0, ParallelType::BIDx);
        Indexer indexer(grid);
        const auto loop = indexer.defaultLoopIndices();
        ASSERT_EQ(loop[0].toString(), "blockIdx.x");
        const IndexResult index = indexer.logicalIndex(loop);
        EXPECT_TRUE(index.predicates.empty());
        const std::string tile_m = index.indices[0].toString();
        const std::string tile_n = index.indices[1].toString();
        for (int64_t block = 0; block < m * n; ++block) {
          const auto [p, q] = testing::swizzleMergeSeed(block, m, n, f);
          ASSERT_EQ(testing::evalCExpr(tile_m, {{"blockIdx.x", block}}), p) << tile_m;
          ASSERT_EQ(testing::evalCExpr(tile_n, {{"blockIdx.x", block}}), q) << tile_n;
        }
      }
    }
  }
}

TEST(Indexer, SymbolicGridPrintsTheMegarowFormula) {
  TensorDomain grid("tile_grid", {{"tile_m", Val::param("M")}, {"tile_n", Val::param("N")}});
  grid.swizzleMerge(0, 1, {4}).parallelize(0, ParallelType::BIDx);
  Indexer indexer(grid);
  const IndexResult index = indexer.logicalIndex(indexer.defaultLoopIndices());
  for (int64_t m = 1; m <= 11; ++m) {
    for (int64_t n = 1; n <= 6; ++n) {
      for (int64_t block = 0; block < m * n; ++block) {
        const auto [p, q] = testing::swizzleMergeSeed(block, m, n, 4);
        const std::map<std::string, int64_t> vars{{"blockIdx.x", block}, {"M", m}, {"N", n}};
        ASSERT_EQ(testing::evalCExpr(index.indices[0].toString(), vars), p);
        ASSERT_EQ(testing::evalCExpr(index.indices[1].toString(), vars), q);
      }
    }
  }
}

TEST(Indexer, NonDivisibleNestedSplitAddsPredicateOnTopOfLogicalBound) {
  // nvFuser's example: split by 5, then split the inner 5 by 3. The inner split overhangs (2*3 > 5).
  TensorDomain td("t", {{"i", Val::param("N")}});
  td.split(0, Val(5)).split(1, Val(3));
  ASSERT_EQ(td.nDims(), 3u);
  Indexer indexer(td);
  const IndexResult index =
      indexer.logicalIndex({Val::loopIndex("i0"), Val::loopIndex("i1"), Val::loopIndex("i2")});
  EXPECT_EQ(index.indices[0].toString(), "i0 * 5 + i1 * 3 + i2");
  std::vector<std::string> predicates;
  for (const Val& p : index.predicates) predicates.push_back(p.toString());
  std::sort(predicates.begin(), predicates.end());
  EXPECT_EQ(predicates, (std::vector<std::string>{"i0 * 5 + i1 * 3 + i2 < N", "i1 * 3 + i2 < 5"}));

  // The predicate is true exactly on the loop indices that name a real element, each once.
  const int64_t N = 13;
  std::vector<int> hits(N, 0);
  for (int64_t i0 = 0; i0 < (N + 4) / 5; ++i0) {
    for (int64_t i1 = 0; i1 < 2; ++i1) {
      for (int64_t i2 = 0; i2 < 3; ++i2) {
        const Bindings b{{"i0", i0}, {"i1", i1}, {"i2", i2}, {"N", N}};
        const int64_t logical = evaluate(index.indices[0], b);
        const bool valid = evaluate(index.predicate(), b) != 0;
        EXPECT_EQ(valid, i1 * 3 + i2 < 5 && logical < N);
        if (valid) ++hits[static_cast<size_t>(logical)];
      }
    }
  }
  EXPECT_EQ(hits, std::vector<int>(N, 1));
}

TEST(Indexer, AllocationDomainIsReachedForwardFromLogical) {
  // An 8 x 64 tile whose allocation is the row-major offset swizzled by Swizzle<3,3,3>, indexed
  // from an unrelated loop schedule of the same logical domain.
  TensorDomain td("smem", {{"m", Val(8)}, {"k", Val(64)}});
  td.merge(0).swizzle(0, 3, 3, 3);
  td.setAllocationDomain(td.loop());
  td.setLoopDomain(td.logical());
  td.split(1, Val(8));  // loop: [m, k/8, 8]
  Indexer indexer(td);
  const IndexResult alloc = indexer.allocationIndex(indexer.defaultLoopIndices());
  ASSERT_EQ(alloc.indices.size(), 1u);
  EXPECT_TRUE(alloc.predicates.empty());
  const auto loop = indexer.defaultLoopIndices();
  for (int64_t m = 0; m < 8; ++m) {
    for (int64_t k = 0; k < 64; ++k) {
      Bindings b;
      b.set(loop[0].name(), m).set(loop[1].name(), k / 8).set(loop[2].name(), k % 8);
      EXPECT_EQ(evaluate(alloc.indices[0], b), Swizzle::apply(m * 64 + k, 3, 3, 3));
    }
  }
  EXPECT_EQ(indexer.linearize(td.logical(), {Val::loopIndex("m"), Val::loopIndex("k")}).toString(), "m * 64 + k");
}

TEST(Indexer, RejectsWrongArity) {
  TensorDomain td("t", {{"m", Val(4)}, {"n", Val(4)}});
  Indexer indexer(td);
  EXPECT_THROW(indexer.logicalIndex({Val(0)}), UserError);
}

}  // namespace
}  // namespace tilegrid::ir
