#include <gtest/gtest.h>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/scheduler/bank_model.h"
#include "tilegrid/scheduler/operand_banks.h"

namespace tilegrid::scheduler {
namespace {

std::optional<std::array<int, 3>> sw(int b, int m, int s) { return std::array<int, 3>{b, m, s}; }

TEST(BankModel, SeedCases) {
  // Seed 001's eight worked cases, in order: 32, 1, 8, 1, 4, 2, 1, 2.
  const Layout2D l64 = Layout2D::parse("(32,64):(64,1)");
  const Layout2D l48 = Layout2D::parse("(32,48):(48,1)");
  const Layout2D l40 = Layout2D::parse("(32,40):(40,1)");
  EXPECT_EQ(analyzeLayoutAccess(l64, 4, 32, 1, std::nullopt).wavefronts, 32);
  EXPECT_EQ(analyzeLayoutAccess(l64, 4, 32, 1, sw(5, 0, 6)).wavefronts, 1);
  EXPECT_EQ(analyzeLayoutAccess(l64, 4, 8, 4, std::nullopt).wavefronts, 8);
  EXPECT_EQ(analyzeLayoutAccess(l64, 4, 8, 4, sw(3, 2, 4)).wavefronts, 1);
  EXPECT_EQ(analyzeLayoutAccess(l48, 4, 8, 4, std::nullopt).wavefronts, 4);
  EXPECT_EQ(analyzeLayoutAccess(l48, 4, 8, 4, sw(3, 2, 4)).wavefronts, 2);
  EXPECT_EQ(analyzeLayoutAccess(l48, 4, 8, 4, sw(2, 2, 3)).wavefronts, 1);
  EXPECT_EQ(analyzeLayoutAccess(l40, 4, 8, 4, sw(2, 2, 3)).wavefronts, 2);
  EXPECT_EQ(analyzeLayoutAccess(l64, 4, 32, 1, std::nullopt).ideal, 1);
}

TEST(BankModel, PhasesFollowAccessWidth) {
  // 32 lanes reading consecutive 8-byte words: two 16-lane phases, each conflict-free.
  const BankReport r8 = analyzeLayoutAccess(Layout2D{32, 2, 2, 1}, 4, 32, 2, std::nullopt);
  EXPECT_EQ(r8.phases.size(), 2u);
  EXPECT_EQ(r8.wavefronts, 2);
  // 16-byte accesses: four 8-lane phases.
  const BankReport r16 = analyzeLayoutAccess(Layout2D{32, 8, 8, 1}, 2, 32, 8, std::nullopt);
  EXPECT_EQ(r16.phases.size(), 4u);
  EXPECT_EQ(r16.wavefronts, 4);
  // Two bf16 lanes in one word share it: a broadcast, not a conflict.
  EXPECT_EQ(analyzeLayoutAccess(Layout2D{32, 1, 1, 1}, 2, 32, 1, std::nullopt).wavefronts, 1);
  EXPECT_EQ(analyzeLayoutAccess(Layout2D{32, 1, 0, 1}, 4, 32, 1, std::nullopt).wavefronts, 1);
}

TEST(BankModel, Ldmatrix) {
  std::vector<int64_t> rows128, rows_swizzled;
  for (int64_t r = 0; r < 8; ++r) {
    rows128.push_back(r * 128);  // 64 bf16 per row, same 16-byte column: every row in banks 0-3
    rows_swizzled.push_back(r * 128 + ((r % 8) * 16));
  }
  EXPECT_EQ(analyzeLdmatrix(rows128).wavefronts, 8);
  EXPECT_EQ(analyzeLdmatrix(rows_swizzled).wavefronts, 1);
  EXPECT_THROW(analyzeLdmatrix({0, 16, 32}), UserError);
  EXPECT_THROW(analyzeLdmatrix({0, 16, 32, 48, 64, 80, 96, 100}), UserError);
}

TEST(BankModel, DrawsTheMapAndEndsWithCounts) {
  const std::string map =
      drawBankMap(analyzeLayoutAccess(Layout2D::parse("(32,48):(48,1)"), 4, 8, 4, sw(2, 2, 3)));
  EXPECT_NE(map.find("R01 |"), std::string::npos);
  EXPECT_NE(map.find("01 01 01 01"), std::string::npos);
  EXPECT_EQ(map.substr(map.size() - 23), "wavefronts: 1\nideal: 1\n") << map;
}

TEST(BankModel, RejectsBadInput) {
  for (const char* bad : {"", "(32,64)", "(32,64):(64)", "32,64:64,1", "(0,64):(64,1)", "(a,64):(64,1)",
                          "(32,64):(64,1)x", "(99999999999999999999,1):(1,1)"}) {
    EXPECT_THROW(Layout2D::parse(bad), UserError) << bad;
  }
  const Layout2D l = Layout2D::parse("( 32 , 64 ) : ( 64 , 1 )");
  EXPECT_EQ(l.toString(), "(32,64):(64,1)");
  EXPECT_THROW(analyzeLayoutAccess(l, 4, 33, 1, std::nullopt), UserError);
  EXPECT_THROW(analyzeLayoutAccess(l, 4, 8, 3, std::nullopt), UserError);  // 12-byte access
  EXPECT_THROW(analyzeLayoutAccess(l, 3, 8, 1, std::nullopt), UserError);
  EXPECT_THROW(analyzeLayoutAccess(l, 4, 8, 1, sw(3, 2, 1)), UserError);   // |S| < B
  EXPECT_THROW(analyzeLayoutAccess(Layout2D::parse("(4,64):(64,1)"), 4, 8, 1, std::nullopt), UserError);
}

TEST(OperandBanks, ChosenAtomsAreConflictFreeForLdmatrixAndCpAsync) {
  for (Major major : {Major::K, Major::MN}) {
    for (int64_t mn : {64, 128, 256}) {
      for (int64_t k : {16, 32, 64, 128}) {
        const SmemAtom atom = chooseSmemAtom(major, DType::BF16, major == Major::K ? k : mn);
        const auto tile = buildSmemTile("t", {"mn", ir::Val(mn)}, {"k", ir::Val(k)}, 2, atom);
        const OperandBankCheck check = checkOperandTile(tile, atom);
        EXPECT_TRUE(check.conflictFree()) << atom.toString() << " " << mn << "x" << k << ": ldmatrix "
                                          << check.ldmatrix_worst_phase << ", cp.async " << check.cp_async_worst_warp;
      }
    }
  }
  // The model tells the difference: the same 64-wide K-major tile without a swizzle is 8-way.
  const SmemAtom plain{AtomKind::INTER, Major::K, DType::BF16};
  const OperandBankCheck plain_check =
      checkOperandTile(buildSmemTile("t", {"m", ir::Val(128)}, {"k", ir::Val(64)}, 1, plain), plain);
  EXPECT_EQ(plain_check.ldmatrix_worst_phase, 1);  // INTER tiles 8x8 atoms: rows are 16 bytes apart
  const OperandBankCheck sw64_on_128 = checkOperandTile(
      buildSmemTile("t", {"m", ir::Val(128)}, {"k", ir::Val(128)}, 1, SmemAtom{AtomKind::SW32, Major::K, DType::BF16}),
      SmemAtom{AtomKind::SW32, Major::K, DType::BF16});
  EXPECT_FALSE(sw64_on_128.conflictFree());
}

}  // namespace
}  // namespace tilegrid::scheduler
