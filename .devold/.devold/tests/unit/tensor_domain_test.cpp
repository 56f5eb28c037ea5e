#include <gtest/gtest.h>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/tensor_domain.h"

namespace tilegrid::ir {
namespace {

TEST(TensorDomain, SchedulingCallsRewriteTheLoopDomain) {
  TensorDomain td("t", {{"m", Val(10)}, {"n", Val(7)}});
  td.split(0, Val(4));
  ASSERT_EQ(td.nDims(), 3u);
  EXPECT_EQ(td.axis(0).extent.constValue(), 3);
  EXPECT_EQ(td.axis(1).extent.constValue(), 4);
  EXPECT_EQ(td.axis(-1).extent.constValue(), 7);
  td.reorder({{1, 2}});
  EXPECT_EQ(td.axis(1).extent.constValue(), 7);
  EXPECT_EQ(td.axis(2).extent.constValue(), 4);
  td.merge(1);
  td.merge(0);
  ASSERT_EQ(td.nDims(), 1u);
  EXPECT_EQ(td.axis(0).extent.constValue(), 84);
  td.parallelize(0, ParallelType::BIDx);
  EXPECT_EQ(td.axis(0).parallel, ParallelType::BIDx);
}

TEST(TensorDomain, ReorderKeepsUnnamedAxesInOrder) {
  TensorDomain td("t", {{"a", Val(2)}, {"b", Val(3)}, {"c", Val(5)}, {"d", Val(7)}});
  td.reorder({{3, 0}});
  std::vector<int64_t> extents;
  for (size_t i = 0; i < td.nDims(); ++i) extents.push_back(*td.axis(static_cast<int>(i)).extent.constValue());
  EXPECT_EQ(extents, (std::vector<int64_t>{7, 2, 3, 5}));
}

TEST(TensorDomain, PrintsDomainsAndHistory) {
  TensorDomain td("tile_grid", {{"tile_m", Val(10)}, {"tile_n", Val(7)}});
  td.swizzleMerge(0, 1, {4});
  td.parallelize(0, ParallelType::BIDx);
  EXPECT_EQ(td.toString(),
            "TensorDomain tile_grid\n"
            "  logical:    [tile_m0{10}, tile_n1{7}]\n"
            "  loop:       [i2{70}[blockIdx.x]]\n"
            "  allocation: logical\n"
            "  transforms:\n"
            "    i2{70}[blockIdx.x] = SwizzleMerge(tile_m0{10}, tile_n1{7}, factors={4})\n");
}

TEST(TensorDomain, RejectsBadAxesAndDomains) {
  TensorDomain td("t", {{"m", Val(8)}, {"n", Val(8)}});
  EXPECT_THROW(td.split(2, Val(2)), UserError);
  EXPECT_THROW(td.split(-3, Val(2)), UserError);
  EXPECT_THROW(td.merge(0, 0), UserError);
  EXPECT_THROW(td.reorder({{0, 1}, {1, 1}}), UserError);
  EXPECT_THROW(td.swizzleMerge(1, 1, {2}), UserError);
  EXPECT_THROW(TensorDomain("e", {}), UserError);
  EXPECT_THROW(TensorDomain("z", {{"m", Val(0)}}), UserError);
  td.parallelize(0, ParallelType::BIDx);
  EXPECT_THROW(td.parallelize(1, ParallelType::BIDx), UserError);
  // A domain that drops a logical axis cannot be a loop or allocation domain.
  EXPECT_THROW(td.setAllocationDomain({td.logical()[0]}), UserError);
  try {
    td.split(5, Val(2));
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: -2 to 1"), std::string::npos) << e.what();
  }
}

TEST(TensorDomain, HistoryIsTopologicallyOrderedAndCopiesAreIndependent) {
  TensorDomain td("t", {{"m", Val(16)}, {"n", Val(16)}});
  td.split(0, Val(4)).merge(1, 2).swizzle2d(0, 1, Swizzle2DKind::CyclicShift);
  TensorDomain copy = td;
  copy.merge(0);
  EXPECT_EQ(td.nDims(), 2u);
  EXPECT_EQ(copy.nDims(), 1u);
  EXPECT_EQ(td.graph().numTransforms(), 3u);
  EXPECT_EQ(copy.graph().numTransforms(), 4u);
  const auto order = copy.graph().topologicalOrder();
  ASSERT_EQ(order.size(), 4u);
  // Every transform's inputs are produced before it (or are logical).
  std::set<IterDomainId> available(copy.logical().begin(), copy.logical().end());
  for (size_t t : order) {
    for (IterDomainId in : copy.graph().transform(t).inputs()) EXPECT_TRUE(available.count(in));
    for (IterDomainId out : copy.graph().transform(t).outputs()) available.insert(out);
  }
}

}  // namespace
}  // namespace tilegrid::ir
