#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <unordered_set>

#include "tilegrid/ir/error.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k, Layout layout = Layout::TN) {
  return testing::bf16Problem(m, n, k, layout);
}

TEST(MatmulProblem, ValidatesAndDerivesAlignment) {
  EXPECT_EQ(problem(4096, 4096, 4096).align_a, 8);
  const MatmulProblem odd = problem(4097, 4097, 4097);
  EXPECT_EQ(odd.align_a, 1);
  EXPECT_EQ(problem(4096, 4096, 4098).align_a, 2);
  EXPECT_EQ(problem(100, 200, 300, Layout::NT).leadingDimA(), 100);
  EXPECT_THROW(problem(0, 1, 1), UserError);
  EXPECT_THROW(problem(1, -5, 1), UserError);
  EXPECT_THROW(problem(int64_t{1} << 40, int64_t{1} << 40, 8), UserError);  // C bytes overflow
  MatmulProblem p;
  p.m = p.n = p.k = 64;
  p.a_dtype = p.b_dtype = DType::FP32;
  EXPECT_THROW(p.validate(), UserError);
  p.a_dtype = p.b_dtype = DType::BF16;
  p.align_a = 16;  // wider than 16 bytes of bf16
  EXPECT_THROW(p.validate(), UserError);
  p.align_a = 4;
  EXPECT_NO_THROW(p.validate());
  EXPECT_EQ(parseLayout("NN"), Layout::NN);
  EXPECT_THROW(parseLayout("XN"), UserError);
  EXPECT_THROW(parseDType("int8"), UserError);
  EXPECT_EQ(parseInputDType("fp16"), DType::FP16);
  EXPECT_THROW(parseInputDType("fp32"), UserError);
  EXPECT_EQ(majorOfA(Layout::TN), Major::K);
  EXPECT_EQ(majorOfB(Layout::TN), Major::K);
  EXPECT_EQ(majorOfA(Layout::NT), Major::MN);
  EXPECT_EQ(majorOfB(Layout::NT), Major::MN);
}

TEST(DeviceSpec, PresetsAndValidation) {
  const DeviceSpec a100 = DeviceSpec::preset("sm_80");
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_EQ(a100.smem_per_block, 163 * 1024);
  EXPECT_EQ(a100.arch(), Arch::Sm80);
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  EXPECT_EQ(h100.sm_count, 132);
  EXPECT_EQ(h100.l2_bytes, 50LL * 1024 * 1024);
  EXPECT_EQ(h100.arch(), Arch::Sm90);
  EXPECT_THROW(DeviceSpec::preset("sm_70"), UserError);
  DeviceSpec volta{"V100", 7, 0, 80, 96 * 1024, 6 * 1024 * 1024};
  EXPECT_THROW(volta.validate(), UserError);
}

TEST(MatmulParams, JsonRoundTripHashAndEquality) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const MatmulParams p = chooseParams(problem(4096, 4096, 4096), h100);
  const nlohmann::json j = p;
  const MatmulParams back = j.get<MatmulParams>();
  EXPECT_EQ(back, p);
  EXPECT_EQ(back.hash(), p.hash());
  EXPECT_EQ(back.toString(), p.toString());
  MatmulParams other = p;
  other.stages = p.stages - 1;
  EXPECT_NE(other, p);
  EXPECT_NE(other.hash(), p.hash());
  std::unordered_set<MatmulParams> set{p, back, other};
  EXPECT_EQ(set.size(), 2u);
  nlohmann::json broken = j;
  broken.erase("stages");
  EXPECT_THROW(broken.get<MatmulParams>(), UserError);
  broken = j;
  broken["smem_a"]["atom"] = "SW256";
  EXPECT_THROW(broken.get<MatmulParams>(), UserError);
  // Params saved before stream-K existed load without it; a mistyped value is an error.
  ASSERT_TRUE(p.stream_k);
  nlohmann::json old = j;
  old.erase("stream_k");
  EXPECT_FALSE(old.get<MatmulParams>().stream_k);
  EXPECT_NE(old.get<MatmulParams>().hash(), p.hash());
  old["stream_k"] = "yes";
  EXPECT_THROW(old.get<MatmulParams>(), UserError);
  // Likewise before swap_ab.
  const MatmulParams swapped = chooseParams(problem(4096, 4096, 4096), h100, {.swap_ab = true});
  const nlohmann::json js = swapped;
  EXPECT_EQ(js.get<MatmulParams>(), swapped);
  EXPECT_NE(swapped.hash(), p.hash());
  nlohmann::json before_swap = j;
  before_swap.erase("swap_ab");
  EXPECT_EQ(before_swap.get<MatmulParams>(), p);
}

// C^T = B^T A^T: the operands trade places, and each operand keeps its storage, so A's contiguous
// mode becomes the new B's and B's the new A's; swapping twice is the identity.
TEST(MatmulProblem, SwappedOperandsKeepEachOperandsStorage) {
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    MatmulProblem p = problem(300, 500, 70, layout);
    p.a_dtype = p.b_dtype = DType::FP16;
    p.out_dtype = DType::FP32;
    const MatmulProblem s = swapOperands(p);
    EXPECT_EQ(s.m, 500);
    EXPECT_EQ(s.n, 300);
    EXPECT_EQ(s.k, 70);
    EXPECT_EQ(majorOfA(s.layout), majorOfB(layout)) << toString(layout);
    EXPECT_EQ(majorOfB(s.layout), majorOfA(layout)) << toString(layout);
    EXPECT_EQ(s.leadingDimA(), p.leadingDimB()) << toString(layout);
    EXPECT_EQ(s.leadingDimB(), p.leadingDimA()) << toString(layout);
    EXPECT_EQ(s.align_a, p.align_b);
    EXPECT_EQ(s.out_dtype, DType::FP32);
    EXPECT_EQ(swapOperands(s), p) << toString(layout);
  }
}

TEST(MatmulParams, RejectsImpossibleValues) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const DeviceSpec a100 = DeviceSpec::preset("sm_80");
  const MatmulProblem prob = problem(4096, 4096, 4096);
  const MatmulParams good = chooseParams(prob, h100);
  EXPECT_NO_THROW(good.validate(prob, h100));
  auto expectRejected = [&](MatmulParams p, const DeviceSpec& d, const std::string& needle) {
    try {
      p.validate(prob, d);
      ADD_FAILURE() << "accepted: " << p.toString();
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  MatmulParams p = good;
  p.stages = 0;
  expectRejected(p, h100, "stages is 0");
  p = good;
  p.instruction_tile.n = 100;
  expectRejected(p, h100, "multiple of 8");
  p = good;
  p.stages = 6;  // 6 x 48 KiB does not fit in 227 KiB
  expectRejected(p, h100, "shared memory");
  p = good;
  expectRejected(p, a100, "sm_90 kernels need an sm_90 device");
  p = chooseParams(prob, a100);
  p.instruction_tile = TileShape{16, 8, 8};
  expectRejected(p, a100, "m16n8k16");
  p = chooseParams(prob, a100);
  p.cluster = ClusterShape{2, 1};
  expectRejected(p, a100, "clusters need sm_90");
  p = chooseParams(prob, a100);
  EXPECT_FALSE(p.stream_k);
  p.stream_k = true;
  expectRejected(p, a100, "stream_k needs a persistent sm_90 kernel");
  EXPECT_THROW(chooseParams(prob, h100, {.persistent = false, .stream_k = true}), UserError);
  p = chooseParams(prob, a100);
  p.swap_ab = true;
  expectRejected(p, a100, "swap_ab (computing C^T = B^T * A^T) is emitted for sm_90 kernels only");
  p = good;
  p.swap_ab = true;  // the epilogue atom is still the n-contiguous one
  expectRejected(p, h100, "smem_epilogue atom");
  EXPECT_FALSE(chooseParams(prob, h100, {.persistent = false}).stream_k);
  EXPECT_THROW(chooseParams(prob, h100, {.cta_tile = TileShape{128, 100, 64}}), UserError);
  EXPECT_THROW(chooseParams(prob, a100, {.cta_tile = TileShape{256, 256, 256}}), UserError);
  EXPECT_THROW(chooseParams(prob, h100, {.stages = 0}), UserError);
  EXPECT_THROW(chooseParams(prob, h100, {.factors = std::vector<int64_t>{0}}), UserError);
  const MatmulParams custom = chooseParams(prob, a100, {.cta_tile = TileShape{128, 64, 32}, .stages = 3});
  EXPECT_EQ(custom.cta_tile, (TileShape{128, 64, 32}));
  EXPECT_EQ(custom.stages, 3);
  EXPECT_EQ(custom.smem_a.kind, AtomKind::SW64);
}

TEST(Schedule, PlansTheNamedProblemsOnBothArchs) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    const DeviceSpec device = DeviceSpec::preset(arch);
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{4096, 4096, 4096}, {4000, 3000, 1000}}) {
      const MatmulSchedule s = schedule(problem(m, n, k), device);
      EXPECT_EQ(s.tiles(), ((m + s.params.cta_tile.m - 1) / s.params.cta_tile.m) *
                               ((n + s.params.cta_tile.n - 1) / s.params.cta_tile.n));
      // Swizzle-merge: no overhang. A work unit is a cluster tile (sm_90 pairs CTAs along M here).
      EXPECT_EQ(s.params.cluster.m, device.arch() == Arch::Sm90 ? 2 : 1);
      EXPECT_EQ(s.workUnits() * s.params.cluster.m, s.tiles());
      // Persistent by default: as many CTAs as are resident at once (one per SM for these tiles).
      EXPECT_TRUE(s.params.persistent);
      EXPECT_EQ(s.params.ctasPerSm(s.problem, device), 1);
      EXPECT_EQ(s.ctas(), std::min<int64_t>(device.sm_count, s.tiles()));
      EXPECT_TRUE(s.banks_a.conflictFree());
      EXPECT_TRUE(s.banks_b.conflictFree());
      EXPECT_LE(s.params.smemBytes(s.problem), device.smem_per_block);
      EXPECT_NE(s.toString().find("TensorDomain smem_a"), std::string::npos);
    }
  }
  // Split-merge launches the overhang: 4000 / 128 -> 32 tile rows, factor 3 pads to 33.
  ScheduleOverrides legacy{.method = GridMethod::SplitMerge, .factors = std::vector<int64_t>{3}, .group = GridGroup::M,
                           .persistent = false};
  const MatmulSchedule s = schedule(problem(4000, 3000, 1000), DeviceSpec::preset("sm_80"), legacy);
  EXPECT_EQ(s.workUnits(), 33 * s.tilesN());
  EXPECT_EQ(s.ctas(), s.workUnits());
}

TEST(Schedule, PersistentGridHoldsTheCtasResidentAtOnce) {
  // H100 preset, sm_80 kernels: four 64x64 warps on a 128x128x64 tile in 3 stages take 104 KiB of
  // shared memory and at most 128 x 255 registers, so two CTAs share an SM; eight warps do not.
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  ScheduleOverrides o{.arch = Arch::Sm80};
  o.cta_tile = TileShape{128, 128, 64};
  o.warp_tile = TileShape{64, 64, 64};
  o.stages = 3;
  const MatmulSchedule two = schedule(problem(4096, 4096, 4096), h100, o);
  EXPECT_EQ(two.params.ctasPerSm(two.problem, h100), 2);
  EXPECT_EQ(two.ctas(), 2 * h100.sm_count);
  o.warp_tile = TileShape{64, 32, 64};
  const MatmulSchedule one = schedule(problem(4096, 4096, 4096), h100, o);
  EXPECT_EQ(one.params.ctasPerSm(one.problem, h100), 1);
  EXPECT_EQ(one.ctas(), h100.sm_count);
  // Fewer tiles than resident CTAs: one CTA per tile.
  const MatmulSchedule small = schedule(problem(256, 256, 64), h100, ScheduleOverrides{.arch = Arch::Sm80});
  EXPECT_EQ(small.ctas(), small.tiles());
}

TEST(Schedule, Sm80StagesTheEpilogueUnlessItCostsAStage) {
  // A100 (164 KiB a block), 128x256x64 in 3 stages: bf16 slabs (16 KiB) still fit, fp32 slabs
  // (32 KiB) would leave 2 stages, so fp32 output stores from registers with 3.
  const DeviceSpec a100 = DeviceSpec::preset("sm_80");
  const MatmulSchedule bf16 = schedule(problem(4096, 4096, 4096), a100);
  EXPECT_TRUE(bf16.params.stagedEpilogue(bf16.problem));
  EXPECT_EQ(bf16.params.stages, 3);
  MatmulProblem wide = problem(4096, 4096, 4096);
  wide.out_dtype = DType::FP32;
  wide.align_c = 0;
  wide.validate();
  const MatmulSchedule fp32 = schedule(wide, a100);
  EXPECT_FALSE(fp32.params.stage_epilogue);
  EXPECT_FALSE(fp32.params.stagedEpilogue(fp32.problem));
  EXPECT_EQ(fp32.params.stages, 3);
  EXPECT_LT(fp32.params.smemBytes(fp32.problem), bf16.params.smemBytes(bf16.problem));
  // H100 (227 KiB): both stage, 4 stages.
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const MatmulSchedule h = schedule(wide, h100, ScheduleOverrides{.arch = Arch::Sm80});
  EXPECT_TRUE(h.params.stagedEpilogue(h.problem));
  EXPECT_EQ(h.params.stages, 4);
  // C rows that are not 16-byte aligned store from registers whatever the flag says.
  const MatmulSchedule odd = schedule(problem(4096, 4097, 4096), h100, ScheduleOverrides{.arch = Arch::Sm80});
  EXPECT_FALSE(odd.params.stagedEpilogue(odd.problem));
  // sm_90 always stages.
  MatmulParams p = schedule(problem(4096, 4096, 4096), h100).params;
  p.stage_epilogue = false;
  EXPECT_THROW(p.validate(problem(4096, 4096, 4096), h100), UserError);
}

// The sm_80 mma order goes column by column only where it was measured to pay: B K-major, compiled
// for an sm_90 device. It round-trips through JSON (older params read as rows), names the kernel,
// and sm_90 kernels refuse it.
TEST(Schedule, Sm80MmaOrderFollowsBsLayoutOnHopper) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const DeviceSpec a100 = DeviceSpec::preset("sm_80");
  const ScheduleOverrides sm80{.arch = Arch::Sm80};
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    const MatmulProblem prob = problem(4096, 4096, 4096, layout);
    const MmaOrder expected = majorOfB(layout) == Major::K ? MmaOrder::Columns : MmaOrder::Rows;
    EXPECT_EQ(chooseParams(prob, h100, sm80).mma_order, expected) << toString(layout);
    EXPECT_EQ(chooseParams(prob, a100).mma_order, MmaOrder::Rows) << toString(layout);
    EXPECT_EQ(chooseParams(prob, h100).mma_order, MmaOrder::Rows) << toString(layout);
    ScheduleOverrides forced = sm80;
    forced.mma_order = expected == MmaOrder::Rows ? MmaOrder::Columns : MmaOrder::Rows;
    EXPECT_EQ(chooseParams(prob, h100, forced).mma_order, forced.mma_order) << toString(layout);
  }
  const MatmulProblem prob = problem(4096, 4096, 4096);
  const MatmulParams columns = chooseParams(prob, h100, sm80);
  const nlohmann::json j = columns;
  EXPECT_EQ(j.at("mma_order"), "columns");
  EXPECT_EQ(j.get<MatmulParams>(), columns);
  EXPECT_NE(columns.toString().find("mma columns"), std::string::npos) << columns.toString();
  nlohmann::json old = j;
  old.erase("mma_order");
  EXPECT_EQ(old.get<MatmulParams>().mma_order, MmaOrder::Rows);
  old["mma_order"] = "diagonal";
  EXPECT_THROW(old.get<MatmulParams>(), UserError);
  EXPECT_THROW(parseMmaOrder("Rows"), UserError);
  EXPECT_THROW(chooseParams(prob, h100, {.mma_order = MmaOrder::Columns}), UserError);
}

TEST(Schedule, Sm80TilesShrinkUntilHalfTheSmsGetACta) {
  // H100 preset (132 SMs). The figures that chose the rule are in heuristics.cpp.
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const ScheduleOverrides sm80{.arch = Arch::Sm80};
  struct Expect {
    int64_t m, n, k;
    TileShape cta, warp;
    int64_t stages, ctas_per_sm;
  };
  for (const Expect& e : {Expect{4096, 4096, 4096, {128, 256, 64}, {64, 64, 64}, 4, 1},
                          Expect{2048, 2048, 2048, {128, 256, 64}, {64, 64, 64}, 4, 1},    // 128 tiles
                          Expect{2048, 1024, 1024, {128, 128, 64}, {64, 64, 64}, 3, 2},    // 64 -> 128 tiles
                          Expect{1000, 1000, 1000, {64, 128, 64}, {32, 64, 64}, 4, 2},     // 32, 64 -> 128
                          Expect{256, 256, 4096, {64, 64, 64}, {32, 32, 64}, 4, 2}}) {   // 16 tiles at most
    const MatmulSchedule s = schedule(problem(e.m, e.n, e.k), h100, sm80);
    EXPECT_EQ(s.params.cta_tile, e.cta) << e.m << "x" << e.n << "x" << e.k;
    EXPECT_EQ(s.params.warp_tile, e.warp) << e.m << "x" << e.n << "x" << e.k;
    EXPECT_EQ(s.params.stages, e.stages) << e.m << "x" << e.n << "x" << e.k;
    EXPECT_EQ(s.params.ctasPerSm(s.problem, h100), e.ctas_per_sm) << e.m << "x" << e.n << "x" << e.k;
  }
}

TEST(Schedule, EveryLayoutGetsMatchingAtoms) {
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    for (const char* arch : {"sm_80", "sm_90"}) {
      const MatmulSchedule s = schedule(problem(1024, 1024, 1024, layout), DeviceSpec::preset(arch));
      EXPECT_EQ(s.params.smem_a.major, majorOfA(layout));
      EXPECT_EQ(s.params.smem_b.major, majorOfB(layout));
      EXPECT_TRUE(s.banks_a.conflictFree() && s.banks_b.conflictFree()) << toString(layout) << " " << arch;
    }
  }
}

// 192x192 on an H100: double-buffered 64-column epilogue slabs would leave three stages, 32-column
// ones leave four (3000x3000x4096 TN measured 696 -> 727 TFLOP/s). Tiles with four stages keep their
// slabs, and so does a user's stage count. 256x152x64 computing C^T: 707 -> 768 at 5000x3000x4096.
TEST(Sm90Epilogue, NarrowsItsSlabsWhereThatBuysAStage) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const TileShape square{192, 192, 64};
  const MatmulParams bf16 = chooseParams(problem(3000, 3000, 4096), h100, {.cta_tile = square});
  EXPECT_EQ(bf16.epilogue_tile.n, 32);
  EXPECT_EQ(bf16.stages, 4);
  EXPECT_LE(bf16.smemBytes(problem(3000, 3000, 4096)), h100.smem_per_block);
  MatmulProblem fp32_out = problem(3000, 3000, 4096);
  fp32_out.out_dtype = DType::FP32;
  const MatmulParams fp32 = chooseParams(fp32_out, h100, {.cta_tile = square});
  EXPECT_EQ(fp32.epilogue_tile.n, 16);
  EXPECT_EQ(fp32.stages, 4);
  const MatmulParams wide = chooseParams(problem(4096, 4096, 4096), h100);
  EXPECT_EQ(wide.epilogue_tile.n, 64);
  EXPECT_EQ(wide.stages, 4);
  const MatmulParams user = chooseParams(problem(3000, 3000, 4096), h100, {.cta_tile = square, .stages = 3});
  EXPECT_EQ(user.epilogue_tile.n, 64);
  EXPECT_EQ(user.stages, 3);
  // 256x152x64 pairs: computing C^T, TMA store boxes stay 64 elements along m whatever the slab's
  // width, so the slabs halve until four stages fit (16 columns for bf16, 8 for fp32). Computing C
  // a fourth stage would need 32-byte box rows: three stages, 64-column slabs.
  const TileShape tall{256, 152, 64};
  const MatmulParams transposed = chooseParams(problem(5000, 3000, 4096), h100, {.cta_tile = tall, .swap_ab = true});
  EXPECT_EQ(transposed.epilogue_tile.n, 16);
  EXPECT_EQ(transposed.stages, 4);
  const MatmulParams transposed_fp32 = chooseParams(fp32_out, h100, {.cta_tile = tall, .swap_ab = true});
  EXPECT_EQ(transposed_fp32.epilogue_tile.n, 8);
  EXPECT_EQ(transposed_fp32.stages, 4);
  EXPECT_LE(transposed_fp32.smemBytes(fp32_out), h100.smem_per_block);
  const MatmulParams straight = chooseParams(problem(5000, 3000, 4096), h100, {.cta_tile = tall, .swap_ab = false});
  EXPECT_EQ(straight.epilogue_tile.n, 64);
  EXPECT_EQ(straight.stages, 3);
}

}  // namespace
}  // namespace tilegrid::scheduler
