#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/val.h"
#include "support/c_expr.h"

namespace tilegrid::ir {
namespace {

const Val x = Val::loopIndex("x");
const Val y = Val::loopIndex("y");
const Val M = Val::param("M");

TEST(Val, ConstantsFold) {
  EXPECT_EQ((Val(6) * 7 + 3).constValue(), 45);
  EXPECT_EQ((Val(7) / 2).constValue(), 3);
  EXPECT_EQ((Val(-7) / 2).constValue(), -3);  // C truncation
  EXPECT_EQ(ceilDiv(Val(10), Val(4)).constValue(), 3);
  EXPECT_EQ(min(Val(3), Val(5)).constValue(), 3);
  EXPECT_EQ((Val(12) ^ Val(10)).constValue(), 6);
  EXPECT_EQ((Val(1) << Val(4)).constValue(), 16);
  EXPECT_EQ(select(Val(3) < Val(4), Val(1), Val(2)).constValue(), 1);
  EXPECT_EQ((Val(3) < Val(4)).toString(), "true");
}

TEST(Val, IdentitiesSimplify) {
  EXPECT_TRUE((x * 1).sameAs(x));
  EXPECT_TRUE((Val(1) * x).sameAs(x));
  EXPECT_TRUE((x + 0).sameAs(x));
  EXPECT_TRUE((Val(0) + x).sameAs(x));
  EXPECT_TRUE((x - 0).sameAs(x));
  EXPECT_TRUE((x / 1).sameAs(x));
  EXPECT_EQ((x % 1).constValue(), 0);
  EXPECT_EQ((Val(0) * x).constValue(), 0);
  EXPECT_EQ((x * 0).constValue(), 0);
  EXPECT_EQ((x - x).constValue(), 0);
  EXPECT_EQ((x ^ x).constValue(), 0);
  EXPECT_TRUE((x ^ 0).sameAs(x));
  EXPECT_EQ((x & 0).constValue(), 0);
  EXPECT_TRUE((x << 0).sameAs(x));
  EXPECT_TRUE(ceilDiv(x, Val(1)).sameAs(x));
  EXPECT_TRUE(min(x, x).sameAs(x));
  EXPECT_TRUE(select(x < y, x, x).sameAs(x));
  EXPECT_TRUE(((x * 8) / 4).sameAs(x * 2));
  EXPECT_EQ(((x * 8) % 4).constValue(), 0);
  EXPECT_TRUE(((x / 4) / 2).sameAs(x / 8));
  EXPECT_TRUE(((x % 28) % 4).sameAs(x % 4));
  EXPECT_TRUE((x - x / (M * 4) * (M * 4)).sameAs(x % (M * 4)));
  EXPECT_FALSE(((x % 28) % 8).sameAs(x % 8));
  EXPECT_TRUE(((x + 3) + 4).sameAs(x + 7));
  EXPECT_TRUE(ceilDiv(M * 4, Val(4)).sameAs(M));
  EXPECT_EQ((x < x).constValue(), 0);
  EXPECT_TRUE(logicalAnd(x < y, Val::boolean(true)).sameAs(x < y));
}

TEST(Val, PrintsMinimalParentheses) {
  EXPECT_EQ(((x + y) * M).toString(), "(x + y) * M");
  EXPECT_EQ((x * y + M).toString(), "x * y + M");
  EXPECT_EQ((x + (y + M)).toString(), "x + y + M");
  EXPECT_EQ((x - (y - M)).toString(), "x - (y - M)");
  EXPECT_EQ((x - (y + M)).toString(), "x - (y + M)");
  EXPECT_EQ((x / (y * M)).toString(), "x / (y * M)");
  EXPECT_EQ((x * (y / M)).toString(), "x * (y / M)");
  EXPECT_EQ((x ^ (y + M)).toString(), "x ^ (y + M)");
  EXPECT_EQ(((x & y) ^ M).toString(), "(x & y) ^ M");
  EXPECT_EQ((Val(2) + x).toString(), "x + 2");  // constants go right
  EXPECT_EQ((x - Val(-3)).toString(), "x - (-3)");
  EXPECT_EQ(ceilDiv(M, Val(4)).toString(), "ceilDiv(M, 4)");
  EXPECT_EQ(select(eq(x, M / 4), M % 4, Val(4)).toString(), "x == M / 4 ? M % 4 : 4");
  EXPECT_EQ((select(x < y, x, y) + 1).toString(), "(x < y ? x : y) + 1");
  EXPECT_EQ(logicalAnd(x < M, y < M).toString(), "x < M && y < M");
  EXPECT_EQ(Val::builtin("blockIdx.x").toString(), "blockIdx.x");
}

TEST(Val, EvaluateAndErrors) {
  const Bindings b{{"x", 10}, {"M", 3}};
  EXPECT_EQ(evaluate(ceilDiv(x, M) * 2, b), 8);
  EXPECT_THROW(evaluate(x + y, b), UserError);
  EXPECT_THROW(evaluate(x / (M - 3), b), UserError);
  EXPECT_THROW(Val(1) / Val(0), UserError);
  EXPECT_THROW(Val::var("", VarKind::Param), UserError);
  // Folding or evaluating past 64 bits is an error, not a wrapped index.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_THROW(Val(kMax) * Val(17), UserError);
  EXPECT_THROW(Val(kMax) + Val(1), UserError);
  EXPECT_THROW(Val(-kMax) - Val(2), UserError);
  EXPECT_THROW(ceilDiv(Val(kMax), Val(2)), UserError);
  EXPECT_THROW(evaluate(x * M, Bindings{{"x", kMax / 2}, {"M", 3}}), UserError);
  EXPECT_EQ(evaluate(x * M, Bindings{{"x", kMax / 3}, {"M", 3}}), kMax / 3 * 3);
  try {
    evaluate(x + y, b);
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'y'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(x.freeVars(), std::vector<std::string>{"x"});
  EXPECT_EQ((M * x + y).freeVars(), (std::vector<std::string>{"M", "x", "y"}));
}

// Random expression trees, built alongside a reference evaluation of the same operations. Checks
// three things agree on every tree: the reference, evaluate(), CompiledVal, and an independent
// parse of the printed text. The last one catches any missing parenthesis.
struct Built {
  Val val;
  std::function<int64_t(int64_t, int64_t, int64_t)> ref;
};

Built randomTree(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, depth <= 0 ? 3 : 16);
  const int choice = pick(rng);
  if (choice <= 3) {
    switch (choice) {
      case 0: return {x, [](int64_t a, int64_t, int64_t) { return a; }};
      case 1: return {y, [](int64_t, int64_t b, int64_t) { return b; }};
      case 2: return {M, [](int64_t, int64_t, int64_t m) { return m; }};
      default: {
        const int64_t c = std::uniform_int_distribution<int64_t>(0, 9)(rng);
        return {Val(c), [c](int64_t, int64_t, int64_t) { return c; }};
      }
    }
  }
  Built l = randomTree(rng, depth - 1);
  Built r = randomTree(rng, depth - 1);
  // Divisors and shift amounts are kept positive and small by construction.
  auto safe = [](const Built& b) {
    return Built{(b.val & 7) + 1, [f = b.ref](int64_t p, int64_t q, int64_t s) { return (f(p, q, s) & 7) + 1; }};
  };
  switch (choice) {
    case 4: return {l.val + r.val, [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) + r.ref(a, b, c); }};
    case 5: return {l.val - r.val, [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) - r.ref(a, b, c); }};
    case 6: return {l.val * r.val, [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) * r.ref(a, b, c); }};
    case 7: {
      Built d = safe(r);
      return {l.val / d.val, [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) / d.ref(a, b, c); }};
    }
    case 8: {
      Built d = safe(r);
      return {l.val % d.val, [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) % d.ref(a, b, c); }};
    }
    case 9: {
      Built d = safe(r);
      return {ceilDiv(l.val, d.val), [=](int64_t a, int64_t b, int64_t c) {
                const int64_t n = l.ref(a, b, c), k = d.ref(a, b, c);
                return (n + k - 1) / k;
              }};
    }
    case 10: return {min(l.val, r.val), [=](int64_t a, int64_t b, int64_t c) { return std::min(l.ref(a, b, c), r.ref(a, b, c)); }};
    case 11: return {max(l.val, r.val), [=](int64_t a, int64_t b, int64_t c) { return std::max(l.ref(a, b, c), r.ref(a, b, c)); }};
    case 12: return {l.val ^ r.val, [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) ^ r.ref(a, b, c); }};
    case 13: return {l.val & r.val, [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) & r.ref(a, b, c); }};
    case 14: {
      const int64_t s = std::uniform_int_distribution<int64_t>(0, 3)(rng);
      return {l.val << Val(s), [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) << s; }};
    }
    case 15: {
      const int64_t s = std::uniform_int_distribution<int64_t>(0, 3)(rng);
      return {l.val >> Val(s), [=](int64_t a, int64_t b, int64_t c) { return l.ref(a, b, c) >> s; }};
    }
    default: {
      Built c = randomTree(rng, depth - 1);
      return {select(l.val < r.val, c.val, r.val), [=](int64_t a, int64_t b, int64_t m) {
                return l.ref(a, b, m) < r.ref(a, b, m) ? c.ref(a, b, m) : r.ref(a, b, m);
              }};
    }
  }
}

TEST(Val, RandomTreesAgreeWithReferenceCompiledAndPrintedText) {
  std::mt19937 rng(20261122);
  const std::vector<std::string> order{"x", "y", "M"};
  for (int tree = 0; tree < 400; ++tree) {
    const Built built = randomTree(rng, 4);
    const std::string text = built.val.toString();
    CompiledVal compiled(built.val, order);
    for (int64_t a = 0; a < 5; ++a) {
      for (int64_t b = 0; b < 4; ++b) {
        const int64_t m = 3 + a;
        const int64_t expected = built.ref(a, b, m);
        const int64_t vars[3] = {a, b, m};
        ASSERT_EQ(evaluate(built.val, Bindings{{"x", a}, {"y", b}, {"M", m}}), expected) << text;
        ASSERT_EQ(compiled(vars), expected) << text;
        ASSERT_EQ(testing::evalCExpr(text, {{"x", a}, {"y", b}, {"M", m}}), expected) << text;
      }
    }
  }
}

// Interval arithmetic bounds each operand alone; the rewrite rule for a quotient times its divisor's
// factor keeps (a / (b * c)) * c within a / b, which decides whether a traversal whose factor is read
// at launch indexes in 32 bits. The bound is checked against every value of small ranges.
TEST(Val, QuotientTimesFactorIsBoundedByTheQuotientOfTheRest) {
  const Val a = Val::loopIndex("a"), b = Val::param("b"), c = Val::param("c");
  const std::map<std::string, int64_t> ranges{{"a", 1000}, {"b", 100}, {"c", 100}};
  EXPECT_EQ(maxValue(a / (b * c) * c, ranges), 1000);
  EXPECT_EQ(maxValue(c * (a / (c * b)), ranges), 1000);
  EXPECT_EQ(minValue(a / (b * c) * c, ranges), 0);
  // Either factor of the divisor bounds it; a factor not in the divisor leaves the product's bound.
  EXPECT_EQ(maxValue(a / (b * c) * b, ranges), 1000);
  EXPECT_EQ(maxValue(a / (b * c) * Val::param("d"), {{"a", 1000}, {"b", 100}, {"c", 100}, {"d", 100}}), 100000);
  for (int64_t av = 0; av <= 300; ++av) {
    for (int64_t bv = 1; bv <= 12; ++bv) {
      for (int64_t cv = 1; cv <= 12; ++cv) {
        ASSERT_LE(evaluate(a / (b * c) * c, {{"a", av}, {"b", bv}, {"c", cv}}), av / bv);
      }
    }
  }
}

}  // namespace
}  // namespace tilegrid::ir
