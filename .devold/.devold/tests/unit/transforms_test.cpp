// The defining property of every transform, on every index of small domains: backward undoes
// forward; on the output domain, backward is valid exactly where its predicate holds and forward
// undoes it there; and outputs stay inside their extents.
#include <gtest/gtest.h>

#include <set>

#include "tilegrid/ir/error.h"
#include "tilegrid/ir/merge.h"
#include "tilegrid/ir/split.h"
#include "tilegrid/ir/swizzle.h"
#include "tilegrid/ir/swizzle2d.h"
#include "support/transform_maps.h"

namespace tilegrid::ir {
namespace {

using testing::allIndices;
using testing::compileMaps;

std::vector<int64_t> constExtents(const std::vector<Val>& extents) {
  std::vector<int64_t> values;
  for (const Val& e : extents) values.push_back(*e.constValue());
  return values;
}

bool inside(const std::vector<int64_t>& index, const std::vector<int64_t>& extents) {
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0 || index[i] >= extents[i]) return false;
  }
  return true;
}

// Checks the round trips of `t` over its whole (constant) domain. Returns how many output indices
// were valid, which must equal the input domain's size.
void checkRoundTrips(const Transform& t, const std::string& label) {
  const auto maps = compileMaps(t);
  const auto in_extents = constExtents(t.inputExtents());
  const auto out_extents = constExtents(t.outputExtents());
  for (const auto& in : allIndices(in_extents)) {
    const auto out = maps.forward(in);
    ASSERT_TRUE(inside(out, out_extents)) << label;
    ASSERT_EQ(maps.backward(out), in) << label;
    ASSERT_EQ(maps.predicate(out)[0], 1) << label;
  }
  int64_t valid = 0;
  std::set<std::vector<int64_t>> images;
  for (const auto& out : allIndices(out_extents)) {
    if (maps.predicate(out)[0] == 0) {
      ASSERT_FALSE(inside(maps.backward(out), in_extents)) << label << ": predicate false on a valid index";
      continue;
    }
    ++valid;
    const auto in = maps.backward(out);
    ASSERT_TRUE(inside(in, in_extents)) << label;
    ASSERT_EQ(maps.forward(in), out) << label;
    images.insert(in);
  }
  int64_t domain = 1;
  for (int64_t e : in_extents) domain *= e;
  ASSERT_EQ(valid, domain) << label;
  ASSERT_EQ(static_cast<int64_t>(images.size()), domain) << label;
}

TEST(Split, RoundTripsForAllExtentsAndFactors) {
  for (int64_t extent = 1; extent <= 24; ++extent) {
    for (int64_t factor = 1; factor <= 25; ++factor) {
      for (bool inner : {true, false}) {
        Split split(Val(extent), Val(factor), inner);
        checkRoundTrips(split, "Split(" + std::to_string(extent) + ", " + std::to_string(factor) + ")");
        EXPECT_EQ(split.divisible(), factor * ((extent + factor - 1) / factor) == extent);
      }
    }
  }
}

TEST(Split, SymbolicExtentNeedsPredicateUnlessDivisible) {
  const Val N = Val::param("N");
  EXPECT_FALSE(Split(N, Val(4), true).divisible());
  EXPECT_TRUE(Split(N * 4, Val(4), true).divisible());
  EXPECT_THROW(Split(Val(8), Val(0), true), UserError);
  EXPECT_THROW(Split(Val(8), Val(-2), true), UserError);
}

TEST(Merge, RoundTripsForAllExtents) {
  for (int64_t outer = 1; outer <= 24; ++outer) {
    for (int64_t inner = 1; inner <= 24; ++inner) {
      checkRoundTrips(Merge(Val(outer), Val(inner)), "Merge(" + std::to_string(outer) + ", " + std::to_string(inner) + ")");
    }
  }
}

TEST(Swizzle, SeedExample) {
  // Seed 000: coordinate (7, 25) of (8,32):(32,1) is offset 249; Swizzle<2,4,3> sends it to 233.
  EXPECT_EQ(Swizzle::apply(7 * 32 + 25, 2, 4, 3), 233);
  Swizzle swizzle(Val(256), 2, 4, 3);
  EXPECT_EQ(swizzle.forward({Val(249)})[0].constValue(), 233);
  EXPECT_EQ(swizzle.backward({Val(233)}).inputs[0].constValue(), 249);
}

// The bit definition, written independently of tilegrid's masks: for each of the B bits, the bit
// at M - min(0,S) + j is XORed with the bit at M + max(0,S) + j.
int64_t swizzleByBits(int64_t x, int b, int m, int s) {
  int64_t out = x;
  for (int j = 0; j < b; ++j) {
    const int source = m + std::max(0, s) + j;
    const int target = m - std::min(0, s) + j;
    out ^= ((x >> source) & 1) << target;
  }
  return out;
}

TEST(Swizzle, MatchesBitDefinitionForSmallParameters) {
  for (int b = 0; b <= 3; ++b) {
    for (int m = 0; m <= 4; ++m) {
      for (int s = -5; s <= 5; ++s) {
        if (std::abs(s) < b) {
          EXPECT_THROW(Swizzle::validate(b, m, s), UserError);
          continue;
        }
        for (int64_t x = 0; x < 2048; ++x) {
          ASSERT_EQ(Swizzle::apply(x, b, m, s), swizzleByBits(x, b, m, s)) << b << "," << m << "," << s << " x=" << x;
        }
      }
    }
  }
}

TEST(Swizzle, RoundTripsOnEveryExtentItAccepts) {
  int accepted = 0;
  for (int64_t extent = 1; extent <= 128; ++extent) {
    for (int b = 0; b <= 3; ++b) {
      for (int m = 0; m <= 3; ++m) {
        for (int s = -4; s <= 4; ++s) {
          if (std::abs(s) < b) continue;
          std::unique_ptr<Swizzle> swizzle;
          try {
            swizzle = std::make_unique<Swizzle>(Val(extent), b, m, s);
          } catch (const UserError&) {
            // Rejected extents must really leave the domain for some index.
            EXPECT_EQ(extent % Swizzle::period(b, m, s) != 0, true);
            continue;
          }
          ++accepted;
          checkRoundTrips(*swizzle, "Swizzle<" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) +
                                        "> on " + std::to_string(extent));
        }
      }
    }
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_THROW(Swizzle(Val::param("N"), 3, 3, 3), UserError);
  EXPECT_THROW(Swizzle(Val(96), 3, 3, 3), UserError);  // sets yyy bits, but is no multiple of 2^(M+B) = 64
}

TEST(Swizzle2D, RoundTripsForAllKindsAndExtents) {
  for (auto kind : {Swizzle2DKind::XOR, Swizzle2DKind::CyclicShift, Swizzle2DKind::ZShape}) {
    for (int64_t X = 1; X <= 24; ++X) {
      for (int64_t Y = 1; Y <= 24; ++Y) {
        const bool xor_ok = (Y & (Y - 1)) == 0 && X <= Y;
        if (kind == Swizzle2DKind::XOR && !xor_ok) {
          EXPECT_THROW(Swizzle2D(Val(X), Val(Y), kind), UserError);
          continue;
        }
        checkRoundTrips(Swizzle2D(Val(X), Val(Y), kind),
                        std::string(toString(kind)) + " " + std::to_string(X) + "x" + std::to_string(Y));
      }
    }
  }
  EXPECT_EQ(parseSwizzle2DKind("ZShape"), Swizzle2DKind::ZShape);
  EXPECT_THROW(parseSwizzle2DKind("spiral"), UserError);
}

TEST(Swizzle2D, KindsFollowTheirDefinitions) {
  const Val x = Val::loopIndex("x"), y = Val::loopIndex("y");
  EXPECT_EQ(Swizzle2D(Val(8), Val(8), Swizzle2DKind::XOR).backward({x, y}).inputs[1].toString(), "x ^ y");
  EXPECT_EQ(Swizzle2D(Val(5), Val(7), Swizzle2DKind::CyclicShift).backward({x, y}).inputs[1].toString(), "(x + y) % 7");
  EXPECT_EQ(Swizzle2D(Val(5), Val(7), Swizzle2DKind::ZShape).backward({x, y}).inputs[1].toString(),
            "x % 2 == 1 ? 6 - y : y");
}

}  // namespace
}  // namespace tilegrid::ir
