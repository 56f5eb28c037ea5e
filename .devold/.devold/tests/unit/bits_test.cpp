// ir::possibleBits and ir::simplifyBits, checked by their defining properties over whole small
// domains: every value an expression takes has only possible bits set, and the simplified
// expression takes the same value everywhere. Random expression trees exercise every rule; the
// swizzles tilegrid prints for its shared-memory tiles show the XOR dropping out where the bits it
// reads are clear.
#include <gtest/gtest.h>

#include <random>

#include "tilegrid/ir/affine.h"
#include "tilegrid/ir/bits.h"
#include "tilegrid/ir/swizzle.h"

namespace tilegrid::ir {
namespace {

const Val x = Val::loopIndex("x"), y = Val::loopIndex("y");
const std::map<std::string, int64_t> kRanges = {{"x", 19}, {"y", 37}};

void expectProperties(const Val& v) {
  const std::optional<uint64_t> bits = possibleBits(v, kRanges);
  const Val simple = simplifyBits(v, kRanges);
  for (int64_t xv = 0; xv <= kRanges.at("x"); ++xv) {
    for (int64_t yv = 0; yv <= kRanges.at("y"); ++yv) {
      const Bindings b{{"x", xv}, {"y", yv}};
      const int64_t value = evaluate(v, b);
      if (bits) {
        ASSERT_GE(value, 0) << v.toString();
        ASSERT_EQ(static_cast<uint64_t>(value) & ~*bits, 0u)
            << v.toString() << " = " << value << " at x=" << xv << ", y=" << yv << " outside bits " << *bits;
      }
      ASSERT_EQ(evaluate(simple, b), value) << v.toString() << " simplified to " << simple.toString() << " at x=" << xv
                                            << ", y=" << yv;
    }
  }
}

// A random non-negative expression over x and y: the operations the Indexer prints.
Val randomExpr(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, depth <= 0 ? 2 : 11);
  const auto constant = [&] { return Val(std::uniform_int_distribution<int64_t>(1, 70)(rng)); };
  const auto pow2 = [&] { return Val(int64_t{1} << std::uniform_int_distribution<int>(0, 7)(rng)); };
  switch (pick(rng)) {
    case 0: return x;
    case 1: return y;
    case 2: return constant();
    case 3: return randomExpr(rng, depth - 1) + randomExpr(rng, depth - 1);
    case 4: return randomExpr(rng, depth - 1) * (rng() % 2 ? pow2() : constant());
    case 5: return randomExpr(rng, depth - 1) & randomExpr(rng, depth - 1);
    case 6: return randomExpr(rng, depth - 1) ^ randomExpr(rng, depth - 1);
    case 7: return randomExpr(rng, depth - 1) >> Val(std::uniform_int_distribution<int64_t>(0, 6)(rng));
    case 8: return randomExpr(rng, depth - 1) << Val(std::uniform_int_distribution<int64_t>(0, 6)(rng));
    case 9: return randomExpr(rng, depth - 1) / (rng() % 2 ? pow2() : constant());
    case 10: return randomExpr(rng, depth - 1) % (rng() % 2 ? pow2() : constant());
    default: return randomExpr(rng, depth - 1) + randomExpr(rng, depth - 1) * pow2();
  }
}

TEST(Bits, RandomExpressionsKeepTheirValuesAndBits) {
  std::mt19937 rng(41);
  int rewritten = 0;
  for (int i = 0; i < 1500; ++i) {
    const Val v = randomExpr(rng, 4);
    expectProperties(v);
    if (::testing::Test::HasFatalFailure()) return;
    rewritten += simplifyBits(v, kRanges).toString() != v.toString();
  }
  EXPECT_GT(rewritten, 100);  // the rules do fire
}

TEST(Bits, ClearBitsAndDisjointXorsRewrite) {
  // x < 32 and y * 64: no bit in common.
  expectProperties((y * 64) & x);
  EXPECT_EQ(simplifyBits((y * 64) & x, kRanges).constValue(), 0);
  expectProperties((y * 64) ^ x);
  EXPECT_TRUE(affineIn(simplifyBits((y * 64) ^ x, kRanges), "y").has_value());
  // Below the divisor: the quotient is 0, the remainder the value.
  EXPECT_EQ(simplifyBits(x * 2 / 64, kRanges).constValue(), 0);
  EXPECT_EQ(simplifyBits(x * 2 % 64, kRanges).toString(), (x * 2).toString());
  // Overlapping bits stay as they are.
  EXPECT_EQ(simplifyBits(x ^ y, kRanges).op(), Op::BitXor);
  EXPECT_EQ(possibleBits(x, kRanges), 31u);
  EXPECT_EQ(possibleBits(y * 64, kRanges), 63u << 6);
  EXPECT_FALSE(possibleBits(x - y, kRanges).has_value());  // may be negative
}

// A 128-byte swizzled row-major tile of bf16 (Swizzle<3,3,3> on elements, rows of 64): the start of
// every 64-row block at every k16 step is a plain sum once the rows' low bits are known clear, so its
// steps along k and along blocks are constants (what the sm_90 emitter's descriptors step by).
TEST(Bits, SwizzledTileStartsAreAffineInBlockAndKStep) {
  const Val g = Val::loopIndex("g"), kk = Val::loopIndex("kk");
  const std::map<std::string, int64_t> ranges = {{"g", 3}, {"kk", 3}};
  const Val row = g * 64, col = kk * 16;
  const Val linear = row / 8 * 512 + row % 8 * 64 + col;
  const Val swizzled = linear ^ ((linear & 448) >> 3);
  const Val start = simplifyBits(swizzled, ranges);
  const auto along_kk = affineIn(start, "kk");
  ASSERT_TRUE(along_kk.has_value()) << start.toString();
  EXPECT_EQ(along_kk->step.constValue(), 16);
  EXPECT_EQ(affineIn(along_kk->base, "g")->step.constValue(), 4096);
  for (int64_t gv = 0; gv <= 3; ++gv) {
    for (int64_t kv = 0; kv <= 3; ++kv) {
      const int64_t at = gv * 4096 + kv * 16;
      EXPECT_EQ(evaluate(start, Bindings{{"g", gv}, {"kk", kv}}), Swizzle::apply(at, 3, 3, 3));
    }
  }
}

// A tile copy's piece (it * 2048 + tid * 8) / 64 steps by 32 rows an iteration, and its column
// (the same % 64) does not move: a multiple of the divisor passes through the division.
TEST(Bits, MultiplesOfTheDivisorLeaveAQuotientAndARemainder) {
  const Val piece = x * 2048 + y * 8;
  const auto row = affineIn(simplifyBits(piece / Val(64), kRanges), "x");
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->step.constValue(), 32);
  const Val col = simplifyBits(piece % Val(64), kRanges);
  const auto vars = col.freeVars();
  EXPECT_EQ(std::find(vars.begin(), vars.end(), "x"), vars.end()) << col.toString();
  expectProperties(piece / Val(64));
  expectProperties(piece % Val(64));
  // 2048 is not a multiple of 3000: nothing moves.
  expectProperties((x * 2048 + y) / Val(3000));
}

}  // namespace
}  // namespace tilegrid::ir
