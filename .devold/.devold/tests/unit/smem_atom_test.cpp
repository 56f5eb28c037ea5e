#include <gtest/gtest.h>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/ir/swizzle.h"
#include "tilegrid/scheduler/smem_atom.h"

namespace tilegrid::scheduler {
namespace {

TEST(SmemAtom, ChoiceFollowsTheBitsAlongTheMajorMode) {
  // Seed 000: a (8,32):(32,1) bf16 K-major tile has 512 bits along K, so K_SW64.
  EXPECT_EQ(chooseSmemAtom(Major::K, DType::BF16, 32).kind, AtomKind::SW64);
  EXPECT_EQ(chooseSmemAtom(Major::K, DType::BF16, 64).kind, AtomKind::SW128);
  EXPECT_EQ(chooseSmemAtom(Major::K, DType::BF16, 16).kind, AtomKind::SW32);
  EXPECT_EQ(chooseSmemAtom(Major::MN, DType::FP16, 8).kind, AtomKind::INTER);
  EXPECT_EQ(chooseSmemAtom(Major::K, DType::FP32, 32).kind, AtomKind::SW128);
  for (DType t : {DType::BF16, DType::FP16, DType::FP32}) {
    for (Major major : {Major::K, Major::MN}) {
      for (int64_t extent = 8; extent <= 512; extent += 8) {
        const int64_t bits = extent * bytes(t) * 8;
        const AtomKind expected = bits % 1024 == 0  ? AtomKind::SW128
                                  : bits % 512 == 0 ? AtomKind::SW64
                                  : bits % 256 == 0 ? AtomKind::SW32
                                                    : AtomKind::INTER;
        const SmemAtom atom = chooseSmemAtom(major, t, extent);
        EXPECT_EQ(atom.kind, expected);
        EXPECT_EQ(atom.major, major);
        EXPECT_EQ(extent % atom.contiguousElems(), 0);
      }
    }
  }
  EXPECT_THROW(chooseSmemAtom(Major::K, DType::BF16, 12), UserError);
}

TEST(SmemAtom, PrintsCuteAtomsAndEnums) {
  EXPECT_EQ(SmemAtom({AtomKind::INTER, Major::K, DType::BF16}).toString(),
            "INTER K-major: Swizzle<0,4,3> on bytes, (8,8):(8,1) bf16");
  EXPECT_EQ(SmemAtom({AtomKind::SW32, Major::K, DType::BF16}).toString(),
            "SW32 K-major: Swizzle<1,4,3> on bytes, (8,16):(16,1) bf16");
  EXPECT_EQ(SmemAtom({AtomKind::SW64, Major::MN, DType::BF16}).toString(),
            "SW64 MN-major: Swizzle<2,4,3> on bytes, (32,8):(1,32) bf16");
  EXPECT_EQ(SmemAtom({AtomKind::SW128, Major::MN, DType::BF16}).toString(),
            "SW128 MN-major: Swizzle<3,4,3> on bytes, (64,8):(1,64) bf16");
  // TMA and wgmma number the swizzles in opposite orders.
  const std::vector<std::tuple<AtomKind, int, int>> enums = {
      {AtomKind::INTER, 0, 0}, {AtomKind::SW32, 1, 3}, {AtomKind::SW64, 2, 2}, {AtomKind::SW128, 3, 1}};
  for (const auto& [kind, tma, wgmma] : enums) {
    const SmemAtom atom{kind, Major::K, DType::BF16};
    EXPECT_EQ(atom.tmaSwizzle(), tma);
    EXPECT_EQ(atom.wgmmaLayoutType(), wgmma);
  }
  // Swizzle<3,4,3> on bytes is Swizzle<3,3,3> on bf16 offsets and Swizzle<3,2,3> on fp32 offsets.
  EXPECT_EQ(SmemAtom({AtomKind::SW128, Major::K, DType::BF16}).elementSwizzle(), (std::array<int, 3>{3, 3, 3}));
  EXPECT_EQ(SmemAtom({AtomKind::SW128, Major::K, DType::FP32}).elementSwizzle(), (std::array<int, 3>{3, 2, 3}));
}

// Calls f(mn, k, stage, element_offset) for every element of a buildSmemTile() domain, with the
// offset taken from its allocation domain through the Indexer.
template <typename F>
void forEachAllocatedElement(const ir::TensorDomain& tile, F f) {
  ir::Indexer indexer(tile);
  const auto loop = indexer.defaultLoopIndices();
  const ir::IndexResult alloc = indexer.allocationIndex(loop);
  ASSERT_EQ(alloc.indices.size(), 1u);
  ASSERT_TRUE(alloc.predicates.empty());
  std::vector<std::string> vars;
  for (const auto& v : loop) vars.push_back(v.name());
  ir::CompiledVal offset(alloc.indices[0], vars);
  const int64_t e0 = *tile.iterDomain(tile.logical()[0]).extent.constValue();
  const int64_t e1 = *tile.iterDomain(tile.logical()[1]).extent.constValue();
  const int64_t e2 = *tile.iterDomain(tile.logical()[2]).extent.constValue();
  for (int64_t a = 0; a < e0; ++a) {
    for (int64_t b = 0; b < e1; ++b) {
      for (int64_t s = 0; s < e2; ++s) {
        const int64_t at[3] = {a, b, s};
        f(a, b, s, offset(at));
      }
    }
  }
}

TEST(SmemAtom, StagedHopperTileMatchesSeed002) {
  // A 128x64 bf16 K-major tile, 7 stages: S<3,4,3> o ((8,16),(64,1),(1,7)):((64,512),(1,0),(0,8192)).
  const SmemAtom atom = chooseSmemAtom(Major::K, DType::BF16, 64);
  ASSERT_EQ(atom.kind, AtomKind::SW128);
  const ir::TensorDomain tile = buildSmemTile("smem_a", {"m", ir::Val(128)}, {"k", ir::Val(64)}, 7, atom);
  std::set<int64_t> seen;
  forEachAllocatedElement(tile, [&](int64_t m, int64_t k, int64_t stage, int64_t offset) {
    const int64_t L = (m % 8) * 64 + (m / 8) * 512 + k * 1 + stage * 8192;
    ASSERT_EQ(2 * offset, ir::Swizzle::apply(2 * L, 3, 4, 3)) << m << "," << k << "," << stage;
    seen.insert(offset);
  });
  EXPECT_EQ(seen.size(), 128u * 64u * 7u);
}

TEST(SmemAtom, TileToShapeMatchesSeed000) {
  const SmemAtom k_atom{AtomKind::SW32, Major::K, DType::BF16};
  // K-major: S<1,4,3> o ((8,4),(16,2)):((16,128),(1,512)).
  forEachAllocatedElement(buildSmemTile("t", {"m", ir::Val(32)}, {"k", ir::Val(32)}, 1, k_atom),
                          [](int64_t m, int64_t k, int64_t, int64_t offset) {
                            const int64_t L = (m % 8) * 16 + (m / 8) * 128 + (k % 16) * 1 + (k / 16) * 512;
                            ASSERT_EQ(2 * offset, ir::Swizzle::apply(2 * L, 1, 4, 3));
                          });
  // MN-major: S<1,4,3> o ((16,2),(8,4)):((1,512),(16,128)), modes (m, k).
  const SmemAtom mn_atom{AtomKind::SW32, Major::MN, DType::BF16};
  forEachAllocatedElement(buildSmemTile("t", {"m", ir::Val(32)}, {"k", ir::Val(32)}, 1, mn_atom),
                          [](int64_t m, int64_t k, int64_t, int64_t offset) {
                            const int64_t L = (m % 16) * 1 + (m / 16) * 512 + (k % 8) * 16 + (k / 8) * 128;
                            ASSERT_EQ(2 * offset, ir::Swizzle::apply(2 * L, 1, 4, 3));
                          });
}

TEST(SmemAtom, EveryAtomIsTheByteSwizzleForEveryDtype) {
  for (DType t : {DType::BF16, DType::FP32}) {
    for (AtomKind kind : {AtomKind::INTER, AtomKind::SW32, AtomKind::SW64, AtomKind::SW128}) {
      for (Major major : {Major::K, Major::MN}) {
        const SmemAtom atom{kind, major, t};
        const int64_t w = atom.contiguousElems();
        const int64_t mn = major == Major::K ? 16 : 2 * w;
        const int64_t k = major == Major::K ? 2 * w : 16;
        const auto [b, m, s] = atom.byteSwizzle();
        std::set<int64_t> seen;
        forEachAllocatedElement(buildSmemTile("t", {"mn", ir::Val(mn)}, {"k", ir::Val(k)}, 2, atom),
                                [&](int64_t x, int64_t y, int64_t stage, int64_t offset) {
                                  const int64_t row = major == Major::K ? x : y;
                                  const int64_t col = major == Major::K ? y : x;
                                  const int64_t rows = major == Major::K ? mn : k;
                                  const int64_t L = stage * mn * k + (col / w) * rows * w + row * w + col % w;
                                  ASSERT_EQ(offset * bytes(t), ir::Swizzle::apply(L * bytes(t), b, m, s));
                                  seen.insert(offset);
                                });
        EXPECT_EQ(static_cast<int64_t>(seen.size()), 2 * mn * k);
      }
    }
  }
  EXPECT_THROW(buildSmemTile("t", {"m", ir::Val(12)}, {"k", ir::Val(64)}, 1, SmemAtom{}), UserError);
  EXPECT_THROW(buildSmemTile("t", {"m", ir::Val(16)}, {"k", ir::Val(64)}, 0, SmemAtom{}), UserError);
}

}  // namespace
}  // namespace tilegrid::scheduler
