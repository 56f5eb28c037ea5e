// Every sm_90a variant the emitter produces compiles with NVRTC, without spills, and without the
// ptxas warnings that mean serialized wgmma or an ignored setmaxnreg (C7510, C7511, C7508).
#include <gtest/gtest.h>

#include <tuple>

#include <fmt/format.h>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/sm80_emitter.h"
#include "tilegrid/codegen/sm90_emitter.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "support/compile_cases.h"
#include "support/gemm_cases.h"
#include "support/kernel_config.h"

namespace tilegrid::codegen {
namespace {

// Under AddressSanitizer the emitter's element-by-element layout checks run about ten times slower, and
// the whole matrix outran CI's 900 s: every third variant there (the stride is prime to the 22 tile
// and alignment combinations, so each still compiles in several layouts, dtypes and grid methods).
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kVariantStride = 3;
#else
constexpr size_t kVariantStride = 1;
#endif

TEST(Sm90Emit, EveryVariantCompilesWithoutSpillsOrSerialization) {
  const auto cases = testing::sm90CompileCases();
  ASSERT_GE(cases.size(), 96u);
  runtime::KernelCache cache;
  const std::string failures = testing::compileCases(cases, "sm_90", kVariantStride, cache);
  EXPECT_TRUE(failures.empty()) << failures;
}

// 8-bit inputs: wgmma k32 in every mix of e4m3 and e5m2, with the default schedules' tiles, scales,
// fused epilogues and ping-pong consumers (testing::sm90Fp8Cases).
TEST(Sm90Emit, EightBitInputVariantsCompile) {
  const auto cases = testing::sm90Fp8Cases();
  ASSERT_GE(cases.size(), 10u);
  runtime::KernelCache cache;
  const std::string failures = testing::compileCases(cases, "sm_90", kVariantStride, cache);
  EXPECT_TRUE(failures.empty()) << failures;
  // The kernel multiplies with the k32 instruction of its inputs' types, K-major (no trans bits).
  const auto schedule = scheduler::schedule(cases[6].problem, scheduler::DeviceSpec::preset("sm_90"), cases[6].overrides);
  EXPECT_EQ(schedule.params.instruction_tile.k, 32);
  EXPECT_EQ(schedule.params.cta_tile.k % 64, 0);
  const std::string cuda = emit(schedule).cuda;
  EXPECT_NE(cuda.find("WGMMA_TYPE_A = 2"), std::string::npos);
  EXPECT_NE(cuda.find("WGMMA_TYPE_B = 3"), std::string::npos);
  EXPECT_NE(cuda.find("IK = 32"), std::string::npos);
}

TEST(Sm90Emit, MisalignedOperandsAreReadThroughPaddedCopies) {
  // lda = 4097 (NT: A is M-major) is not 16-byte aligned; K-major B with K = 4096 is.
  const auto problem = testing::makeProblem(4097, 4097, 4096, scheduler::Layout::NT, scheduler::DType::BF16,
                                            scheduler::DType::BF16);
  const KernelSource source = emit(scheduler::schedule(problem, scheduler::DeviceSpec::preset("sm_90")));
  ASSERT_EQ(source.args.size(), 8u);  // the problem, A, B, C (as a map or a pointer), stream-K's workspace, the maps of aux and c
  EXPECT_EQ(source.args[0].kind, ArgKind::Problem);
  const KernelArg& a = source.args[1];
  ASSERT_TRUE(a.padded.has_value());
  EXPECT_EQ(a.padded->rows, 4096u);
  EXPECT_EQ(a.padded->row_bytes, 4097u * 2);
  EXPECT_EQ(a.padded->src_pitch, 4097u * 2);
  EXPECT_EQ(a.padded->dst_pitch, 4160u * 2);  // whole 128-byte lines
  ASSERT_TRUE(a.tensor_map.has_value());
  EXPECT_EQ(a.tensor_map->strides_bytes[0], 4160u * 2);
  EXPECT_EQ(a.tensor_map->dims, (std::vector<uint64_t>{4097, 4096}));
  const auto tn = testing::makeProblem(4097, 4097, 4096, scheduler::Layout::TN, scheduler::DType::BF16,
                                       scheduler::DType::BF16);
  const KernelSource aligned = emit(scheduler::schedule(tn, scheduler::DeviceSpec::preset("sm_90")));
  EXPECT_FALSE(aligned.args[1].padded.has_value());
  EXPECT_FALSE(aligned.args[2].padded.has_value());
}

// C leaves through 128-byte slabs (64 bf16 or 32 fp32 columns), or 64-byte ones where those divide
// the tile's n. Other widths end on a slab overlapping the one before. B tiles whose rows do not
// split into 8-row groups among the cluster's CTAs are multicast in overlapping parts, and the full
// barrier expects every byte the boxes land.
TEST(Sm90Emit, TileWidthsOffTheSlabEndOnOverlappingSlabsAndBoxes) {
  struct Row {
    int64_t n, cluster_m;
    int64_t slab_bf16, slab_fp32;
    int64_t b_rows_landed;  // B rows each stage receives: every CTA's part, overlap included
  };
  for (const Row& r : {Row{160, 1, 32, 32, 160}, Row{200, 2, 64, 32, 208}, Row{224, 2, 32, 32, 224},
                       Row{232, 2, 64, 32, 240}, Row{256, 2, 64, 32, 256}, Row{232, 4, 64, 32, 256},
                       Row{200, 4, 64, 32, 224}, Row{256, 4, 64, 32, 256}}) {
    for (auto out : {scheduler::DType::BF16, scheduler::DType::FP32}) {
      const auto problem = testing::makeProblem(4000, 4000, 4000, scheduler::Layout::TN, scheduler::DType::BF16, out);
      scheduler::ScheduleOverrides o;
      o.cta_tile = scheduler::TileShape{128, r.n, 64};
      o.cluster_m = r.cluster_m;
      const auto schedule = scheduler::schedule(problem, scheduler::DeviceSpec::preset("sm_90"), o);
      const int64_t slab = out == scheduler::DType::BF16 ? r.slab_bf16 : r.slab_fp32;
      EXPECT_EQ(schedule.params.epilogue_tile.n, slab) << r.n;
      const KernelSource source = emit(schedule);
      EXPECT_EQ(testing::configValue(source.cuda, "SLAB_N"), std::to_string(slab)) << r.n;
      // Tiles alone and in pairs share one kernel (clusterAtLaunch), described for pairs; a stage
      // alone lands the tile's rows once.
      const int64_t held = r.cluster_m == 1 ? 2 : r.cluster_m;
      EXPECT_EQ(schedule.params.clusterAtLaunch(), r.cluster_m <= 2) << r.n;
      const int64_t tx = (128 + r.b_rows_landed) * 64 * 2;
      EXPECT_EQ(testing::configValue(source.cuda, "STAGE_TX_BYTES"), std::to_string(tx)) << r.n;
      EXPECT_EQ(testing::configValue(source.cuda, "STAGE_TX_BYTES_ALONE"), std::to_string((128 + r.n) * 64 * 2)) << r.n;
      EXPECT_EQ(testing::configValue(source.cuda, "SHARERS", "operand_b"), std::to_string(held)) << r.n;
      const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
      EXPECT_TRUE(compiled.warnings.empty()) << r.n << ": " << compiled.log;
      EXPECT_EQ(compiled.statsFor().spill_stores + compiled.statsFor().spill_loads, 0) << r.n;
    }
  }
}

// Persistent sm_90 kernels take a stream-K workspace: the device's flag area (two flags for each
// consumer warpgroup the device could hold on every SM, whatever this kernel's grid), then a 64xN
// fp32 partial sum for each consumer warpgroup of each CTA. Without stream-K the parameter is passed as a null pointer.
TEST(Sm90Emit, StreamKAddsAWorkspaceSizedForEveryCta) {
  const auto problem = testing::makeProblem(4096, 4096, 4096, scheduler::Layout::TN, scheduler::DType::BF16,
                                            scheduler::DType::BF16);
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  const auto schedule = scheduler::schedule(problem, device);
  ASSERT_TRUE(schedule.params.stream_k);
  const KernelSource source = emit(schedule);
  ASSERT_EQ(source.args.size(), 8u);
  const KernelArg& workspace = source.args[5];
  EXPECT_EQ(workspace.buffer, "workspace");
  const uint64_t slots = static_cast<uint64_t>(schedule.ctas()) * 2;
  const uint64_t flag_words = (2 * 132 * 4 + 63) / 64 * 64;
  // The flags, the area for accumulated sums, then a sum for every slot.
  const uint64_t accumulation_bytes = 1 << 20;
  EXPECT_EQ(workspace.workspace_bytes, flag_words * 4 + accumulation_bytes + slots * 64 * 256 * 4);
  EXPECT_EQ(testing::configValue(source.cuda, "FLAG_WORDS"), std::to_string(flag_words));
  EXPECT_EQ(testing::configValue(source.cuda, "ACCUMULATION_FLOATS"), std::to_string(accumulation_bytes / 4));
  EXPECT_NE(source.kernel_name.find("_sk"), std::string::npos);
  EXPECT_EQ(testing::configValue(source.cuda, "STREAM_K"), "true");

  scheduler::ScheduleOverrides off;
  off.stream_k = false;
  const KernelSource plain = emit(scheduler::schedule(problem, device, off));
  ASSERT_EQ(plain.args.size(), 8u);  // one signature: the problem, A, B, C's map, C, workspace, the maps of aux and c
  EXPECT_TRUE(plain.args[5].buffer.empty());
  EXPECT_EQ(plain.kernel_name.find("_sk"), std::string::npos);
  EXPECT_EQ(testing::configValue(plain.cuda, "STREAM_K"), "false");
  const auto compiled = runtime::compile(plain, scheduler::Arch::Sm90);
  EXPECT_TRUE(compiled.warnings.empty()) << compiled.log;
  EXPECT_EQ(compiled.statsFor().spill_stores + compiled.statsFor().spill_loads, 0);

  // One CTA per tile leaves no resident grid to share a wave among.
  scheduler::ScheduleOverrides bad;
  bad.persistent = false;
  bad.stream_k = true;
  EXPECT_THROW(scheduler::schedule(problem, device, bad), tilegrid::UserError);
}

// The GPU's stream-K cases are there to cut units: on a 132-SM H100 each of them must leave a last
// wave that the kernel's own split shares among the clusters (a heuristic change once left four
// of them whole).
TEST(Sm90Emit, EveryStreamKCaseCutsUnitsOnAnH100) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  // The ways a cut unit is added up: contiguous ranges and few in-step pieces by the last CTA, in
  // turn; many in-step pieces in slices, from the fewest pieces that do, or accumulated at L2.
  int ranges = 0, in_turn = 0, slices = 0, fewest_slices = 0, accumulated = 0;
  for (const testing::GemmCase& c : testing::sm90StreamKCases()) {
    const auto s = scheduler::schedule(c.problem, device, c.overrides);
    ASSERT_TRUE(s.params.stream_k) << c.label();
    const scheduler::WorkSplit w = s.workSplit();
    EXPECT_GT(w.sharedUnits(), 0) << c.label() << ": " << w.describe();
    ranges += w.pieces == 0;
    in_turn += w.pieces > 0 && w.reduction == scheduler::SplitReduction::InTurn;
    slices += w.reduction == scheduler::SplitReduction::InSlices;
    fewest_slices += w.pieces == scheduler::kSliceReductionMinPieces;
    accumulated += w.reduction == scheduler::SplitReduction::Accumulated;
  }
  EXPECT_GE(ranges, 10);
  EXPECT_GE(in_turn, 1);
  EXPECT_GE(slices, 3);
  EXPECT_GE(fewest_slices, 1);
  EXPECT_GE(accumulated, 3);
}

// The stream-K cases' kernels, which the GPU runs against cuBLAS, compile cleanly too: among them the
// one tile cut in step as the scheduler runs it (64x128x128 pairs whose pieces add their sums at L2).
TEST(Sm90Emit, EveryStreamKCaseCompiles) {
  const auto cases = testing::sm90StreamKCases();
  runtime::KernelCache cache;
  const std::string failures = testing::compileCases(cases, "sm_90", kVariantStride, cache);
  EXPECT_TRUE(failures.empty()) << failures;
}

TEST(Sm90Emit, SixteenBitOutputIsStagedByStmatrix) {
  // The slab layout keeps 8-element row chunks contiguous, so bf16 and fp16 tiles go to shared memory
  // four 8x8 blocks an instruction; fp32 has no stmatrix and keeps the paired stores. Misaligned C
  // (no TMA store) stages the same way.
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  for (int64_t n : {4096, 4097}) {
    for (auto out : {scheduler::DType::BF16, scheduler::DType::FP16, scheduler::DType::FP32}) {
      const auto problem = testing::makeProblem(512, n, 256, scheduler::Layout::TN, scheduler::DType::BF16, out);
      const KernelSource source = emit(scheduler::schedule(problem, device));
      const bool staged = testing::configValue(source.cuda, "STMATRIX", "c_straight") == "true";
      EXPECT_EQ(staged, out != scheduler::DType::FP32) << n << " " << scheduler::toString(out);
      const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
      EXPECT_TRUE(compiled.warnings.empty()) << compiled.log;
    }
  }
}

// Computing C^T = B^T A^T reads the caller's B as the kernel's A and its A as the kernel's B, and
// stores every tile transposed into the caller's row-major C: the kernel's C domain is column-major,
// its tensor map runs along the kernel's M, and 16-bit slabs go out by stmatrix .trans.
TEST(Sm90Emit, SwappedOperandsComputeTheTransposeOverTheCallersBuffers) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  const auto problem = testing::makeProblem(5000, 3000, 4096, scheduler::Layout::NN, scheduler::DType::BF16,
                                            scheduler::DType::BF16);
  const auto s = scheduler::schedule(problem, device, {.cta_tile = scheduler::TileShape{192, 152, 64}, .swap_ab = true});
  const scheduler::MatmulProblem kernel = s.kernelProblem();
  EXPECT_EQ(kernel.m, 3000);
  EXPECT_EQ(kernel.n, 5000);
  EXPECT_EQ(kernel.layout, scheduler::Layout::TT);
  EXPECT_EQ(s.problem, problem);
  EXPECT_EQ(s.tilesM(), 16);  // 3000 / 192
  EXPECT_EQ(s.tilesN(), 33);  // 5000 / 152
  // The kernel's C(m, n) is the caller's C[n][m]: offset m + n * ldc, with ldc read at launch.
  {
    const ir::Indexer indexer(s.gmem_c);
    const ir::IndexResult alloc = indexer.allocationIndex({ir::Val::loopIndex("x"), ir::Val::loopIndex("y")});
    const ir::Val offset = indexer.linearize(s.gmem_c.allocation(), alloc.indices);
    EXPECT_EQ(offset.freeVars(), (std::vector<std::string>{"ldc", "x", "y"}));
    ir::Bindings at = s.shapeValues();
    EXPECT_EQ(ir::evaluate(offset, at.set("x", 7).set("y", 5)), 7 + 5 * 3000);
  }
  EXPECT_EQ(s.params.smem_a.major, scheduler::Major::K);
  EXPECT_EQ(s.params.smem_b.major, scheduler::Major::MN);
  EXPECT_EQ(s.params.smem_epilogue.major, scheduler::Major::MN);
  const KernelSource source = emit(s);
  EXPECT_NE(source.kernel_name.find("_nn_192x152x64"), std::string::npos) << source.kernel_name;
  EXPECT_NE(source.kernel_name.find("_swapab"), std::string::npos) << source.kernel_name;
  ASSERT_GE(source.args.size(), 3u);
  EXPECT_EQ(source.args[1].buffer, "B");
  EXPECT_EQ(source.args[2].buffer, "A");
  ASSERT_TRUE(source.args[3].tensor_map.has_value());
  const TensorMapSpec& c = *source.args[3].tensor_map;
  EXPECT_EQ(c.dims, (std::vector<uint64_t>{3000, 5000}));
  EXPECT_EQ(c.strides_bytes, (std::vector<uint64_t>{6000}));
  EXPECT_EQ(c.box, (std::vector<uint32_t>{64, 64}));  // a consumer's 64 rows by a 64-column slab
  // NN turned is TT: the operands' code changes, so the kernel holds C transposed only.
  EXPECT_FALSE(s.cOrientationAtLaunch());
  EXPECT_EQ(testing::configValue(source.cuda, "TRANSPOSED_C"), "true");
  EXPECT_EQ(testing::configValue(source.cuda, "STRAIGHT_C"), "false");
  EXPECT_EQ(testing::configValue(source.cuda, "STMATRIX", "c_transposed"), "true");
  const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
  EXPECT_TRUE(compiled.warnings.empty()) << compiled.log;
  // fp32 out: element stores into the transposed slab, two 32-column boxes a consumer.
  const auto fp32 = testing::makeProblem(5000, 3000, 4096, scheduler::Layout::NN, scheduler::DType::BF16,
                                         scheduler::DType::FP32);
  const KernelSource wide = emit(scheduler::schedule(fp32, device, {.swap_ab = true}));
  EXPECT_EQ(testing::configValue(wide.cuda, "STMATRIX", "c_transposed"), "false");
  EXPECT_EQ(testing::configValue(wide.cuda, "TRANSPOSED_C"), "true");
  EXPECT_EQ(wide.args[3].tensor_map->box[0], 32u);
  // sm_80 kernels do not compute C^T.
  EXPECT_THROW(scheduler::schedule(problem, device, {.arch = scheduler::Arch::Sm80, .swap_ab = true}), UserError);
}

// Narrow problems whose 128-row tiles take two rounds run them in pairs (pairedNarrowTiles): the
// small side as wgmma's N, computing C^T where it is M and C where it is N, each compiled without
// spills or warnings; in one round they stay alone.
TEST(Sm90Emit, NarrowTilesOverTwoRoundsCompileInPairs) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  std::vector<testing::GemmCase> cases;
  for (const auto& [m, n, layout] : {std::tuple{16, 28672, scheduler::Layout::NT}, std::tuple{1, 28672, scheduler::Layout::TN},
                                     std::tuple{28672, 8, scheduler::Layout::TN}}) {
    const auto problem = testing::makeProblem(m, n, 1024, layout, scheduler::DType::BF16, scheduler::DType::BF16);
    const auto s = scheduler::schedule(problem, device);
    const testing::GemmCase c{problem, {}};
    EXPECT_EQ(s.params.cta_tile.m, 128) << c.label();
    EXPECT_EQ(s.params.cluster.m, 2) << c.label();
    cases.push_back(c);
  }
  const auto one_round = scheduler::schedule(
      testing::makeProblem(16, 14336, 1024, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16), device);
  EXPECT_EQ(one_round.params.cta_tile.m, 128);
  EXPECT_EQ(one_round.params.cluster.m, 1);
  runtime::KernelCache cache;
  const std::string failures = testing::compileCases(cases, "sm_90", 1, cache);
  EXPECT_TRUE(failures.empty()) << failures;
}

// A consumer warpgroup per 64 rows of the CTA tile, up to four. The producer gives registers to
// the consumers by setmaxnreg within the launch bound's share; a tile whose accumulators do not fit
// that share is refused before ptxas sees it.
// Three and four consumer warpgroups of 64 rows, and two of 128 rows (two blocks of accumulators a
// thread, beyond the launch share ptxas reports: setmaxnreg grants them 224).
TEST(Sm90Emit, ConsumerWarpgroupsCompileWithinTheirRegisters) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  struct Row {
    scheduler::TileShape cta;
    int64_t rows;
    uint32_t threads;
    const char* consumer_regs;
  };
  for (const Row& r : {Row{{192, 160, 64}, 64, 512, "152"}, Row{{256, 96, 64}, 64, 640, "104"},
                       Row{{256, 152, 64}, 128, 384, "224"}}) {
    for (auto layout : {scheduler::Layout::TN, scheduler::Layout::TT}) {
      for (bool swap_ab : {false, true}) {
        const auto problem = testing::makeProblem(1000, 1000, 333, layout, scheduler::DType::BF16,
                                                  swap_ab ? scheduler::DType::FP32 : scheduler::DType::BF16);
        scheduler::ScheduleOverrides o;
        o.cta_tile = r.cta;
        o.swap_ab = swap_ab;
        const auto schedule = scheduler::schedule(problem, device, o);
        EXPECT_EQ(schedule.params.warp_tile.m, r.rows);
        EXPECT_EQ(schedule.params.mathGroups(), r.cta.m / r.rows);
        const KernelSource source = emit(schedule);
        EXPECT_EQ(source.launch.block[0], r.threads);
        EXPECT_EQ(testing::configValue(source.cuda, "CONSUMER_REGS"), r.consumer_regs) << r.cta.toString();
        EXPECT_EQ(testing::configValue(source.cuda, "WM"), std::to_string(r.rows));
        EXPECT_EQ(testing::configValue(source.cuda, "WN"), std::to_string(r.cta.n));
        EXPECT_EQ(source.kernel_name.find("_wg128") != std::string::npos, r.rows == 128) << source.kernel_name;
        // The second block of accumulators lands a constant step past the first in the epilogue slab.
        EXPECT_EQ(testing::configValue(source.cuda, "BLOCK_STEP", swap_ab ? "c_transposed" : "c_straight") != "0",
                  r.rows == 128);
        const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
        EXPECT_TRUE(compiled.warnings.empty()) << compiled.log;
        runtime::KernelCache cache;
        EXPECT_LE(testing::spilledBytes(compiled), testing::spilledAtLongK(schedule, cache))
            << r.cta.toString() << (swap_ab ? " computing C^T" : "");
        EXPECT_LE(compiled.statsFor().registers, 65536 / static_cast<int>(r.threads));
      }
    }
  }
  const auto problem = testing::makeProblem(4000, 4000, 4000, scheduler::Layout::TN, scheduler::DType::BF16,
                                            scheduler::DType::BF16);
  const auto refused = [&](scheduler::TileShape cta, const std::string& needle) {
    scheduler::ScheduleOverrides o;
    o.cta_tile = cta;
    try {
      scheduler::schedule(problem, device, o);
      ADD_FAILURE() << cta.toString() << " accepted";
    } catch (const tilegrid::UserError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused({192, 224, 64}, "112 accumulator registers");  // 3 consumers: 128 registers a thread
  // 4 consumers of 64 rows: one m64n160 wgmma (80) does not fit the launch share of 96 with 32 to
  // spare; 2 of 128 rows leave 224 registers, at most 152 for accumulators (160 needed).
  refused({256, 160, 64}, "needs 80 accumulator registers");
  scheduler::ScheduleOverrides two_blocks;
  two_blocks.cta_tile = scheduler::TileShape{256, 160, 64};
  two_blocks.warp_tile = scheduler::TileShape{128, 160, 64};
  EXPECT_THROW(scheduler::schedule(problem, device, two_blocks), tilegrid::UserError);
  refused({320, 128, 64}, "5 consumer warpgroups");
}

// The kernels that hold several tile widths of the one-wave fit (the launch picking one) compile
// with NVRTC without warnings: their main loop and epilogue are instantiated per width on the
// widest's accumulators, and the epilogue's way of storing C is picked before the width. With bf16
// out they spill nothing. With fp32 out (128 accumulators a thread at 128x256 computing C^T, stored
// one element at a time) the kernel of ten widths may store up to 8 words more than the widest width
// compiled alone, in its epilogues: ten instances of them sit beside the live accumulators.
// M = 400 takes the kernel of widths 112-128, M = 900 that of 184-256; 4096x200 the trimmed 64-row
// tiles' kernel of widths 64-128 (one consumer warpgroup).
TEST(Sm90Emit, KernelsHoldingSeveralWidthsSpillNoMoreThanTheWidestAlone) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  struct Case {
    int64_t m, n;
    scheduler::DType out;
  };
  for (auto [m, n, out] : {Case{400, 4096, scheduler::DType::BF16}, Case{900, 4096, scheduler::DType::BF16},
                           Case{900, 4096, scheduler::DType::FP32}, Case{4096, 200, scheduler::DType::BF16},
                           Case{4096, 200, scheduler::DType::FP32}}) {
    const auto problem = testing::makeProblem(m, n, 4096, scheduler::Layout::TN, scheduler::DType::BF16, out);
    const auto schedule = scheduler::schedule(problem, device);
    ASSERT_TRUE(schedule.params.width_at_launch) << schedule.params.toString();
    ASSERT_TRUE(schedule.storesCBothWays());
    const KernelSource source = emit(schedule);
    const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
    EXPECT_TRUE(compiled.warnings.empty()) << compiled.log;
    scheduler::ScheduleOverrides alone;
    alone.cta_tile = schedule.params.compiledTile();
    alone.cluster_m = 1;
    alone.swap_ab = schedule.params.swap_ab;
    alone.width_at_launch = false;
    const auto widest = runtime::compile(emit(scheduler::schedule(problem, device, alone)), scheduler::Arch::Sm90);
    constexpr int64_t kEpilogueSpillWords = 8;
    EXPECT_LE(compiled.statsFor().spill_stores, widest.statsFor().spill_stores + 4 * kEpilogueSpillWords)
        << source.kernel_name << "\n" << compiled.log;
    if (out == scheduler::DType::BF16) {
      EXPECT_EQ(testing::spilledBytes(compiled), 0) << source.kernel_name;
    }
  }
}

// The consumers' wgmma descriptors start from the Indexer's offset of their first k16 step and step by
// constants the emitter checked on the smem domains: a 128x256x64 TN stage of A is 16 KB (1024 units of
// 16 bytes) and of B 32 KB; a k16 step is 32 bytes along each K-major row.
TEST(Sm90Emit, DescriptorsStepByConstantsCheckedOnTheSmemDomains) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  for (auto layout : {scheduler::Layout::TN, scheduler::Layout::NT, scheduler::Layout::NN, scheduler::Layout::TT}) {
    const auto problem = testing::makeProblem(4096, 4096, 4096, layout, scheduler::DType::BF16, scheduler::DType::BF16);
    const KernelSource source = emit(scheduler::schedule(problem, device));
    EXPECT_EQ(testing::configValue(source.cuda, "DESCRIPTOR_STEPS"), "true") << scheduler::toString(layout);
    EXPECT_EQ(testing::configValue(source.cuda, "DESC_STAGE_STEP", "operand_a"), "1024") << scheduler::toString(layout);
    if (layout == scheduler::Layout::TN) {
      EXPECT_EQ(testing::configValue(source.cuda, "DESC_STAGE_STEP", "operand_b"), "2048");
      EXPECT_EQ(testing::configValue(source.cuda, "DESC_KK_STEP", "operand_b"), "2");
    }
  }
}

// Factor lists of one to four levels on tile grids no factor divides compile for both families: the
// tile index function's outputs are int whatever the depth of the traversal.
TEST(Sm90Emit, FactorListsOfOneToFourLevelsCompileOnUnevenGrids) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  runtime::KernelCache cache;
  for (scheduler::Arch arch : {scheduler::Arch::Sm80, scheduler::Arch::Sm90}) {
    for (const std::vector<int64_t>& factors :
         {std::vector<int64_t>{7}, std::vector<int64_t>{8, 2}, std::vector<int64_t>{8, 2, 2}, std::vector<int64_t>{3, 3, 3, 2}}) {
      for (int64_t mnk : {1000, 4000}) {
        const auto problem = testing::makeProblem(mnk, mnk, mnk, scheduler::Layout::TN, scheduler::DType::BF16,
                                                  scheduler::DType::BF16);
        scheduler::ScheduleOverrides o;
        o.arch = arch;
        o.method = scheduler::GridMethod::SwizzleMerge;
        o.factors = factors;
        const KernelSource source = emit(scheduler::schedule(problem, device, o));
        EXPECT_NO_THROW(cache.get(source, scheduler::Arch::Sm90)) << source.kernel_name;
      }
    }
  }
}

TEST(Sm90Emit, EachFamilyRejectsTheOthersSchedule) {
  // K of 512: at K of 256 and under such a problem runs in the sm_80 family on sm_90 too (kernel_family.h).
  const auto problem = testing::makeProblem(256, 256, 512, scheduler::Layout::TN, scheduler::DType::BF16,
                                            scheduler::DType::BF16);
  const auto hopper = scheduler::schedule(problem, scheduler::DeviceSpec::preset("sm_90"));
  ASSERT_EQ(hopper.params.arch, scheduler::Arch::Sm90);
  const auto ampere = scheduler::schedule(problem, scheduler::DeviceSpec::preset("sm_80"));
  EXPECT_THROW(emitSm80(hopper), tilegrid::UserError);
  EXPECT_THROW(emitSm90(ampere), tilegrid::UserError);
}

}  // namespace
}  // namespace tilegrid::codegen
