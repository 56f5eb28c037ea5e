// 8-bit inputs on the CPU side: the e4m3 and e5m2 encodings over every code, the scheduler's
// reading of an 8-bit problem as the 16-bit problem that moves the same bytes, the scales as
// epilogue leaves, and what launch-argument checks make of them.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/ir/epilogue.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/ir/half_float.h"
#include "tilegrid/runtime/epilogue_args.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/scheduler/eight_bit_inputs.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid {
namespace {

using scheduler::DType;
using scheduler::ScaleMode;

struct Format {
  const char* name;
  uint8_t (*encode)(float);
  float (*decode)(uint8_t);
  float largest;
  uint8_t largest_code;
};
const Format kFormats[] = {{"e4m3", ir::floatToE4m3, ir::e4m3ToFloat, 448.0f, 0x7e},
                           {"e5m2", ir::floatToE5m2, ir::e5m2ToFloat, 57344.0f, 0x7b}};

// Every finite code decodes to a value that encodes back to it; NaN codes decode to NaN and NaN
// encodes to one.
TEST(Fp8Encoding, EveryFiniteCodeRoundTrips) {
  for (const Format& f : kFormats) {
    int finite = 0;
    for (int code = 0; code < 256; ++code) {
      const float v = f.decode(static_cast<uint8_t>(code));
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(f.decode(f.encode(v)))) << f.name << " code " << code;
        continue;
      }
      if (std::isinf(v)) continue;
      ++finite;
      EXPECT_EQ(f.encode(v), code) << f.name << " code " << code << " decodes to " << v;
    }
    // e4m3: 256 codes less two NaNs; e5m2: less six NaNs and two infinities.
    EXPECT_EQ(finite, std::string(f.name) == "e4m3" ? 254 : 248) << f.name;
  }
}

// Between two neighbouring finite values the midpoint rounds to the even code, and anything nearer
// one goes to it; past the largest finite value everything saturates to it (satfinite).
TEST(Fp8Encoding, RoundsToNearestEvenAndSaturates) {
  for (const Format& f : kFormats) {
    for (int code = 0; code + 1 < 0x80; ++code) {
      const float lo = f.decode(static_cast<uint8_t>(code)), hi = f.decode(static_cast<uint8_t>(code + 1));
      if (!std::isfinite(hi)) break;
      const float mid = 0.5f * (lo + hi);  // exact: both are short dyadic fractions
      EXPECT_EQ(f.encode(mid), code % 2 == 0 ? code : code + 1) << f.name << " between codes " << code;
      EXPECT_EQ(f.encode(std::nextafter(mid, 0.0f)), code) << f.name;
      EXPECT_EQ(f.encode(std::nextafter(mid, hi)), code + 1) << f.name;
      EXPECT_EQ(f.encode(-mid), 0x80 | f.encode(mid)) << f.name << ": the sign is a bit of its own";
    }
    EXPECT_EQ(f.decode(f.largest_code), f.largest) << f.name;
    for (const float big : {f.largest * 1.01f, 1e30f, std::numeric_limits<float>::infinity()}) {
      EXPECT_EQ(f.encode(big), f.largest_code) << f.name << " " << big;
      EXPECT_EQ(f.encode(-big), 0x80 | f.largest_code) << f.name << " " << -big;
    }
  }
  // The smallest subnormals and a few named values.
  EXPECT_EQ(ir::e4m3ToFloat(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(ir::e5m2ToFloat(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(ir::e4m3ToFloat(0x38), 1.0f);
  EXPECT_EQ(ir::e5m2ToFloat(0x3c), 1.0f);
  EXPECT_TRUE(std::isinf(ir::e5m2ToFloat(0x7c)));
  EXPECT_EQ(runtime::decode(runtime::encode({0.3f, -2.5f}, DType::E4M3), DType::E4M3),
            (std::vector<float>{0.3125f, -2.5f}));
}

scheduler::MatmulProblem fp8Problem(int64_t m, int64_t n, int64_t k, int64_t batch = 1, DType a = DType::E4M3,
                                    DType b = DType::E4M3, ScaleMode scale = ScaleMode::Tensor) {
  scheduler::MatmulProblem p;
  p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.a_dtype = a, p.b_dtype = b, p.scale = scale;
  p.out_dtype = DType::BF16;
  return p.validate();
}

// The schedule of an 8-bit problem is the 16-bit equivalent's, re-read in 8-bit elements: every rule
// sees the same bytes a K tile (eight_bit_inputs.h).
TEST(EightBitInputs, AreScheduledAsTheSixteenBitProblemOfHalfK) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  for (const scheduler::MatmulProblem& p :
       {fp8Problem(4096, 4096, 4096), fp8Problem(8192, 8192, 8192), fp8Problem(1, 4096, 4096),
        fp8Problem(16, 8192, 2048, 1, DType::E4M3, DType::E4M3, ScaleMode::Row), fp8Problem(2000, 3000, 4000),
        fp8Problem(1000, 1000, 1000, 1, DType::E5M2, DType::E5M2), fp8Problem(512, 768, 1024, 3),
        fp8Problem(3000, 2048, 2048, 1, DType::E4M3, DType::E5M2, ScaleMode::None)}) {
    const scheduler::MatmulSchedule eight = scheduler::schedule(p, device);
    const scheduler::MatmulProblem half = scheduler::sixteenBitEquivalent(p);
    scheduler::MatmulParams expected = scheduler::chooseParams(half, device);
    // A dot kernel reads 16-bit inputs only: where the 16-bit problem takes one (one row against a
    // weight), the 8-bit problem runs the tiled kernel it replaces.
    expected.dot.reset();
    EXPECT_EQ(half.k * 2 - p.k, p.k % 2) << p.toString();
    expected.cta_tile.k *= 2;
    expected.warp_tile.k *= 2;
    expected.instruction_tile.k = 32;
    expected.smem_a.dtype = eight.kernelProblem().a_dtype;
    expected.smem_b.dtype = eight.kernelProblem().b_dtype;
    expected.vec_a *= 2;
    expected.vec_b *= 2;
    EXPECT_EQ(eight.params, expected) << p.toString() << "\n8-bit:  " << eight.params.toString()
                                      << "\n16-bit: " << expected.toString();
    // The same shared memory, K tiles and padded copies.
    const scheduler::MatmulParams sixteen = scheduler::chooseParams(half, device);
    EXPECT_EQ(eight.params.smemBytes(eight.kernelProblem()), sixteen.smemBytes(sixteen.kernelProblem(half)))
        << p.toString();
    EXPECT_EQ(scheduler::ceilDiv(p.k, eight.params.cta_tile.k), scheduler::ceilDiv(half.k, expected.cta_tile.k / 2));
    EXPECT_EQ(eight.params.pad_a, p.k % 16 != 0) << p.toString();
  }
}

// Block scales: a K tile is a block, tiles stay within one 128-column block of B, each warpgroup holds
// 64 rows (a second set of accumulators beside its totals), C = A B even where M is small. Three
// warpgroups (192 rows) where they take fewer rounds of a wave enough to outweigh their rows: 4096
// rows of 24 column blocks take 6 rounds of 128-row tiles or 4 of 192 rows; 2048x2048 takes 2
// rounds either way (docs/results/block_scale_tiles_h100.csv: 192 rows 17% slower there).
TEST(EightBitInputs, BlockScalesTakeTilesOfOneScaleBlock) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  for (const auto& [m, n, rows] : {std::tuple<int64_t, int64_t, int64_t>{4096, 3000, 192}, {2000, 3000, 192},
                                   {2048, 2048, 128}, {100, 3000, 128}, {64, 3000, 64}, {1, 3000, 64}}) {
    const auto s = scheduler::schedule(fp8Problem(m, n, 4000, 1, DType::E4M3, DType::E4M3, ScaleMode::Block128), device);
    EXPECT_EQ(s.params.cta_tile, (scheduler::TileShape{rows, 128, 128})) << m;
    EXPECT_EQ(s.params.warp_tile.m, 64) << m;
    EXPECT_FALSE(s.params.swap_ab) << m;
    EXPECT_FALSE(s.params.pingpong) << m;
    EXPECT_TRUE(s.problem.epilogue.isIdentity()) << "block scales are the main loop's, not the epilogue's";
    if (m > 64) {
      // plan names the rule with the tile it picked, in 8-bit elements.
      bool named = false;
      for (const auto& d : s.decisions) {
        named = named || (d.what == "tile" && d.rule.starts_with("blockScaleTileRows") &&
                          d.choice == s.params.cta_tile.toString());
      }
      EXPECT_TRUE(named) << m;
    }
  }
  EXPECT_EQ(scheduler::blockScaleStride(4000), 32);  // 32 blocks
  EXPECT_EQ(scheduler::blockScaleStride(4097), 36);  // 33 blocks, padded to four
}

// A stage of a block-scaled kernel also holds its K block's scales (the tile's rows and B's one):
// the ring keeps the stages that fit beside them, says why, and a stage count given that does not
// fit is refused by name.
TEST(EightBitInputs, BlockScalesKeepTheStagesThatFitBesideTheirScales) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  const auto problem = fp8Problem(2048, 2048, 2048, 1, DType::E4M3, DType::E4M3, ScaleMode::Block128);
  const auto s = scheduler::schedule(problem, device);
  const auto tensor_scaled = fp8Problem(2048, 2048, 2048, 1, DType::E4M3, DType::E4M3, ScaleMode::Tensor);
  ASSERT_EQ(s.params.cta_tile.m, 128);
  EXPECT_EQ(s.params.scaleStageFloats(s.problem), 129);
  EXPECT_EQ(s.params.scaleStageFloats(tensor_scaled), 0);
  EXPECT_EQ(s.params.smemBytes(s.problem) - s.params.smemBytes(tensor_scaled), s.params.stages * 129 * 4);
  EXPECT_LE(s.params.smemBytes(s.problem), device.smem_per_block);
  scheduler::MatmulParams one_more = s.params;
  ++one_more.stages;
  EXPECT_GT(one_more.smemBytes(s.problem), device.smem_per_block) << "the most stages that fit";
  // The 128x128 tile without scales fits one more here, so the trace says why the ring is shorter.
  EXPECT_LE(one_more.smemBytes(tensor_scaled), device.smem_per_block);
  bool said = false;
  for (const auto& d : s.decisions) said = said || (d.what == "stages" && d.rule.find("block scales") != std::string::npos);
  EXPECT_TRUE(said);
  scheduler::ScheduleOverrides overrides;
  overrides.stages = one_more.stages;
  EXPECT_THROW(scheduler::schedule(problem, device, overrides), UserError);
}

// blockScaleTileRows against its dataset (H100, `tilegrid bench --suite bench/suites/tile_block_scales.json
// --format dataset`): for every problem, the tile the scheduler picks was measured and is within 3% of
// the faster of the two.
TEST(EightBitInputs, BlockScaleTilesAreTheFasterMeasured) {
  std::ifstream in(std::string(TILEGRID_SOURCE_DIR) + "/docs/results/block_scale_tiles_h100.csv");
  ASSERT_TRUE(in.good());
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(line, "m,n,k,batch,layout,config,kernel,ours_us,cublas_us");
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::map<std::string, double>> us_by_tile;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    ASSERT_GE(c.size(), 8u) << line;
    const size_t at = c[6].find("_tn_");
    ASSERT_NE(at, std::string::npos) << line;
    const std::string tile = c[6].substr(at + 4, c[6].find('_', at + 4) - at - 4);
    us_by_tile[{std::stoll(c[0]), std::stoll(c[1]), std::stoll(c[2])}][tile] = std::stod(c[7]);
  }
  ASSERT_GE(us_by_tile.size(), 14u);
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  int picked_192 = 0;
  for (const auto& [mnk, us] : us_by_tile) {
    const auto& [m, n, k] = mnk;
    const auto s = scheduler::schedule(fp8Problem(m, n, k, 1, DType::E4M3, DType::E4M3, ScaleMode::Block128), device);
    const std::string chosen = s.params.cta_tile.toString();
    const std::string name = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    ASSERT_TRUE(us.contains(chosen)) << name << ": " << chosen << " was not measured";
    double best = us.at(chosen);
    for (const auto& [tile, t] : us) best = std::min(best, t);
    EXPECT_LE(us.at(chosen), 1.03 * best) << name << ": " << chosen;
    picked_192 += s.params.cta_tile.m == 192;
  }
  EXPECT_GT(picked_192, 0);
  EXPECT_LT(picked_192, static_cast<int>(us_by_tile.size())) << "the dataset holds problems for either tile";
}

TEST(EightBitInputs, TheLastKTileRunsItsK32Steps) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  // 4000 = 31 K tiles of 128 and 32: one k32 step of the last.
  EXPECT_EQ(scheduler::schedule(fp8Problem(2000, 3000, 4000), device).kTailSteps(), 1);
  // 4000 + 40 = 31 * 128 + 72: three steps.
  EXPECT_EQ(scheduler::schedule(fp8Problem(2000, 3000, 4040), device).kTailSteps(), 3);
}

// Scales are epilogue leaves: validate() puts them on the accumulator, before anything else, where
// the epilogue does not place them itself; validating again changes nothing.
TEST(EightBitInputs, ScalesMultiplyTheAccumulatorUnlessTheEpiloguePlacesThem) {
  scheduler::MatmulProblem p = fp8Problem(64, 64, 64, 1, DType::E4M3, DType::E4M3, ScaleMode::Row);
  EXPECT_EQ(p.epilogue.toString(), "acc * scale_a * scale_b");
  p.epilogue = ir::Epilogue::parse("gelu_tanh(alpha * acc + bias[n]); aux = alpha * acc + bias[n]");
  p.validate();
  EXPECT_EQ(p.epilogue.toString(),
            "gelu_tanh(alpha * (acc * scale_a * scale_b) + bias[n]); aux = alpha * (acc * scale_a * scale_b) + bias[n]");
  EXPECT_EQ(ir::Epilogue::parse(p.epilogue.toString()), p.epilogue) << "the text is canonical: it parses back";
  const scheduler::MatmulProblem again = scheduler::MatmulProblem(p).validate();
  EXPECT_EQ(again, p);
  ir::EpLeaves leaves;
  leaves.acc = 3, leaves.alpha = 0.5, leaves.bias = 1, leaves.scale_a = 2, leaves.scale_b = -0.25;
  double aux = 0;
  p.epilogue.evaluate(leaves, &aux);
  EXPECT_DOUBLE_EQ(aux, 0.5 * (3 * 2 * -0.25) + 1);
  // Placed by the epilogue: kept as written.
  p.epilogue = ir::Epilogue::parse("relu(acc * scale_a) * scale_b");
  EXPECT_EQ(p.validate().epilogue.toString(), "relu(acc * scale_a) * scale_b");
}

// Tensor and row scales print the same epilogue expression and differ in the code around it, and
// block scales change the main loop: every scale mode names a kernel of its own (kernel dumps, `tilegrid
// kernels` and the datasets tell kernels apart by name), with the tile and everything else forced alike.
TEST(EightBitInputs, EachScaleModeNamesItsKernel) {
  const scheduler::DeviceSpec h100 = scheduler::DeviceSpec::preset("sm_90");
  scheduler::ScheduleOverrides same;
  same.cta_tile = scheduler::TileShape{128, 128, 128};
  std::map<std::string, ScaleMode> names;
  for (const ScaleMode mode : {ScaleMode::None, ScaleMode::Tensor, ScaleMode::Row, ScaleMode::Block128}) {
    const auto s = scheduler::schedule(fp8Problem(2048, 2048, 4096, 1, DType::E4M3, DType::E4M3, mode), h100, same);
    const auto [at, inserted] = names.emplace(codegen::kernelName(s), mode);
    EXPECT_TRUE(inserted) << scheduler::toString(mode) << " and " << scheduler::toString(at->second) << " share "
                          << at->first;
  }
}

TEST(EightBitInputs, LaunchArgumentsNameAMissingOrMisshapenScale) {
  const scheduler::MatmulProblem p = fp8Problem(64, 96, 64, 2, DType::E4M3, DType::E4M3, ScaleMode::Row);
  EpilogueArgs args;
  float scales[96] = {};
  const auto message = [&] {
    try {
      runtime::checkEpilogueArgs(p, args);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message().find("scale_a (A's row scales)"), std::string::npos) << message();
  args.scale_a = scales;
  args.scale_b = scales;
  EXPECT_EQ(message(), "");
  args.scale_b_batch_stride = 50;  // shorter than B's 96 columns
  EXPECT_NE(message().find("at least its length, 96"), std::string::npos) << message();
  const scheduler::MatmulProblem tensor = fp8Problem(64, 96, 64, 2);
  args.scale_b_batch_stride = 0;
  args.scale_a_batch_stride = 1;
  try {
    runtime::checkEpilogueArgs(tensor, args);
    ADD_FAILURE() << "a tensor scale with a batch stride was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("one float for every batch entry"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilegrid
