// Kernels that read their shape at launch: a kernel is its configuration, the problem reaches it in
// its tg_problem argument, and every index type is proven for the problems the kernel accepts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <set>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/cli_runner.h"
#include "support/kernel_config.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

using testing::bf16Problem;

const DeviceSpec kH100 = DeviceSpec::preset("sm_90");

// One configuration, pinned, so that every problem below gets it.
ScheduleOverrides pinned() {
  ScheduleOverrides o;
  o.cta_tile = TileShape{128, 256, 64};
  o.cluster_m = 2;
  o.stream_k = true;
  o.swap_ab = false;
  o.method = GridMethod::SwizzleMerge;
  o.factors = std::vector<int64_t>{8};
  o.group = GridGroup::N;
  o.launch_choices_compiled = false;
  return o;
}

MatmulProblem withLds(MatmulProblem p, int64_t lda, int64_t ldb, int64_t ldc) {
  p.lda = lda;
  p.ldb = ldb;
  p.ldc = ldc;
  p.align_a = p.align_b = p.align_c = 0;
  return p.validate();
}

// Small problems and decode problems (a side of 64 or less) compile the launch choices in
// (chooseFixedChoices); the shape is still read at launch, and the kernel's name says so.
TEST(RuntimeShape, ShortKernelsOfSmallProblemsCompileTheLaunchChoicesIn) {
  struct Case {
    MatmulProblem problem;
    bool fixed;
  };
  for (const Layout layout : {Layout::TN, Layout::NT}) {
    const auto at = [&](int64_t m, int64_t n, int64_t k) { return bf16Problem(m, n, k, layout); };
    for (const Case& c : {Case{at(512, 512, 512), true}, Case{at(1024, 1024, 1024), true}, Case{at(1, 1, 100000), true},
                          Case{at(2048, 2048, 2048), true}, Case{at(128, 128, 65536), true}, Case{at(4096, 4096, 4096), false},
                          Case{at(1024, 4096, 1024), false}, Case{at(16, 4096, 4096), true}, Case{at(4096, 64, 4096), true},
                          Case{at(4096, 65, 4096), false}}) {
      // 1x1x100000 runs as a dot kernel by default; its tiled kernel is held to the rule too.
      ScheduleOverrides tiled;
      tiled.dot = false;
      const MatmulSchedule s = schedule(c.problem, kH100, tiled);
      const codegen::KernelSource source = codegen::emit(s);
      EXPECT_EQ(s.params.launch_choices_compiled, c.fixed) << c.problem.toString() << ": " << s.params.toString();
      EXPECT_EQ(source.kernel_name.find("_fixed") != std::string::npos, c.fixed) << source.kernel_name;
      EXPECT_EQ(testing::configValue(source.cuda, "SHAPE_AT_LAUNCH"), "true") << source.kernel_name;
      if (c.fixed) {
        EXPECT_EQ(testing::configValue(source.cuda, "GRID_FACTOR_AT_LAUNCH"), "false") << source.kernel_name;
        EXPECT_EQ(testing::configValue(source.cuda, "CLUSTER_AT_LAUNCH"), "false") << source.kernel_name;
      }
    }
  }
  // The override wins both ways.
  ScheduleOverrides off, on;
  off.launch_choices_compiled = false;
  on.launch_choices_compiled = true;
  EXPECT_FALSE(schedule(bf16Problem(512, 512, 512), kH100, off).params.launch_choices_compiled);
  const MatmulSchedule large = schedule(bf16Problem(4096, 4096, 4096), kH100, on);
  EXPECT_TRUE(large.params.launch_choices_compiled);
  EXPECT_NE(codegen::emit(large).kernel_name.find("_fixed"), std::string::npos);
  const testing::CliResult r = testing::runCli({"plan", "--m", "512", "--n", "512", "--k", "512", "--arch", "sm_90"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("launch choices  compiled in"), std::string::npos) << r.out;
}

TEST(RuntimeShape, ProblemsOfOneConfigurationShareOneSource) {
  const std::vector<MatmulProblem> problems = {bf16Problem(4096, 4096, 4096), bf16Problem(4000, 4000, 4000),
                                               bf16Problem(5000, 3000, 4096), bf16Problem(257, 4096, 104),
                                               withLds(bf16Problem(1000, 2000, 3000), 3008, 3000, 2048)};
  const codegen::KernelSource first = codegen::emit(schedule(problems.front(), kH100, pinned()));
  EXPECT_EQ(first.kernel_name.find("4096"), std::string::npos) << first.kernel_name;
  EXPECT_EQ(testing::configValue(first.cuda, "SHAPE_AT_LAUNCH"), "true");
  EXPECT_EQ(testing::configValue(first.cuda, "FIXED_M"), "0");
  for (const MatmulProblem& p : problems) {
    const codegen::KernelSource source = codegen::emit(schedule(p, kH100, pinned()));
    EXPECT_EQ(source.kernel_name, first.kernel_name) << p.toString();
    EXPECT_TRUE(source.cuda == first.cuda) << p.toString();
  }
  // The traversal's group and a factor that is a power of two up to kMaxFactorAtLaunch reach the
  // kernel at launch too: every such traversal gives the same source, and the launch's name and
  // tg_problem tell them apart.
  EXPECT_NE(first.kernel_name.find("_smerge_"), std::string::npos) << first.kernel_name;
  EXPECT_EQ(testing::configValue(first.cuda, "GRID_FACTOR_AT_LAUNCH"), "true");
  for (int64_t factor = 1; factor <= kMaxFactorAtLaunch; factor *= 2) {
    for (GridGroup group : {GridGroup::M, GridGroup::N}) {
      ScheduleOverrides o = pinned();
      o.group = group;
      o.factors = std::vector<int64_t>{factor};
      const MatmulSchedule s = schedule(problems.front(), kH100, o);
      EXPECT_TRUE(codegen::emit(s).cuda == first.cuda) << s.params.grid.toString();
      EXPECT_NE(codegen::launchName(s).find("_smerge" + std::to_string(factor) + toString(group) + "_"), std::string::npos)
          << codegen::launchName(s);
      const tg_problem args = codegen::problemArgs(s, 1);
      EXPECT_EQ(args.grid_factor, factor);
      EXPECT_EQ(args.grid_group, group == GridGroup::N ? kGroupParamN : kGroupParamM);
    }
  }
  // Any other factor is compiled in: it gets a kernel of its own.
  for (int64_t factor : {3, 64}) {
    ScheduleOverrides other_factor = pinned();
    other_factor.factors = std::vector<int64_t>{factor};
    const codegen::KernelSource other = codegen::emit(schedule(problems.front(), kH100, other_factor));
    EXPECT_NE(other.kernel_name.find("_smerge" + std::to_string(factor) + "_"), std::string::npos) << other.kernel_name;
    EXPECT_EQ(testing::configValue(other.cuda, "GRID_FACTOR_AT_LAUNCH"), "false");
    EXPECT_EQ(testing::configValue(other.cuda, "GRID_FACTOR"), std::to_string(factor));
  }
  // A factor list is compiled in.
  ScheduleOverrides two_levels = pinned();
  two_levels.factors = std::vector<int64_t>{4, 2};
  const codegen::KernelSource listed = codegen::emit(schedule(problems.front(), kH100, two_levels));
  EXPECT_NE(listed.kernel_name.find("_smerge4x2n_"), std::string::npos) << listed.kernel_name;
  // What the source does depend on: batched tensor maps, C rows TMA cannot store.
  MatmulProblem batched = bf16Problem(4096, 4096, 4096);
  batched.batch = 2;
  const codegen::KernelSource b = codegen::emit(schedule(batched.validate(), kH100, pinned()));
  EXPECT_FALSE(b.cuda == first.cuda);
  EXPECT_NE(b.kernel_name.find("_batched"), std::string::npos) << b.kernel_name;
  // Whether TMA stores C is read at launch too, where the kernel carries both ways
  // (MatmulSchedule::storesCBothWays); a kernel of larger consumer tiles stores C the problem's way.
  const MatmulSchedule odd = schedule(bf16Problem(4096, 4099, 4096), kH100, pinned());
  ASSERT_TRUE(odd.storesCBothWays());
  EXPECT_TRUE(codegen::emit(odd).cuda == first.cuda);
  EXPECT_NE(codegen::launchName(odd).find("_directc"), std::string::npos) << codegen::launchName(odd);
  EXPECT_EQ(codegen::problemArgs(odd, 66).c_by_tma, 0);
  EXPECT_EQ(codegen::problemArgs(schedule(problems.front(), kH100, pinned()), 66).c_by_tma, 1);
  // The runtime pads an operand whose rows are not 16-byte aligned before the launch: the kernel
  // reads the copy as it reads an aligned operand, so both problems share its source.
  const MatmulSchedule padded = schedule(bf16Problem(4095, 4096, 4096, Layout::NT), kH100, pinned());
  ASSERT_TRUE(padded.params.pad_a);
  EXPECT_TRUE(codegen::emit(padded).cuda == codegen::emit(schedule(bf16Problem(4096, 4096, 4096, Layout::NT), kH100, pinned())).cuda);
  EXPECT_NE(codegen::launchName(padded).find("_pada"), std::string::npos) << codegen::launchName(padded);
  ScheduleOverrides wide_consumers = pinned();
  wide_consumers.cta_tile = TileShape{256, 152, 64};
  wide_consumers.warp_tile = TileShape{128, 152};
  const MatmulSchedule one_way = schedule(bf16Problem(4096, 4099, 4096), kH100, wide_consumers);
  ASSERT_FALSE(one_way.storesCBothWays());
  EXPECT_NE(codegen::emit(one_way).kernel_name.find("_directc"), std::string::npos) << codegen::emit(one_way).kernel_name;
}

// Where A and B share a major (TN, NT), computing C^T = B^T A^T runs the operands' code unchanged:
// problems of either orientation share one source, and the launch's name and tg_problem say which.
// NN and TT turn into each other, and shape-compiled kernels hold the problem's one orientation.
TEST(RuntimeShape, BothOrientationsOfCShareOneSource) {
  for (Layout layout : {Layout::TN, Layout::NT}) {
    ScheduleOverrides o = pinned();
    const MatmulSchedule straight = schedule(bf16Problem(4000, 3000, 4096, layout), kH100, o);
    o.swap_ab = true;
    const MatmulSchedule turned = schedule(bf16Problem(4000, 3000, 4096, layout), kH100, o);
    ASSERT_TRUE(straight.cOrientationAtLaunch() && turned.cOrientationAtLaunch());
    const codegen::KernelSource a = codegen::emit(straight), b = codegen::emit(turned);
    EXPECT_TRUE(a.cuda == b.cuda) << toString(layout);
    EXPECT_EQ(a.kernel_name.find("_swapab"), std::string::npos) << a.kernel_name;
    EXPECT_EQ(testing::configValue(a.cuda, "STRAIGHT_C"), "true");
    EXPECT_EQ(testing::configValue(a.cuda, "TRANSPOSED_C"), "true");
    EXPECT_NE(codegen::launchName(turned).find("_swapab"), std::string::npos) << codegen::launchName(turned);
    EXPECT_EQ(codegen::problemArgs(straight, 66).c_transposed, 0);
    EXPECT_EQ(codegen::problemArgs(turned, 66).c_transposed, 1);
    EXPECT_EQ(codegen::problemArgs(turned, 66).M, 3000);
    // Turned, the kernel's A is the caller's B.
    EXPECT_EQ(a.args[1].buffer, "A");
    EXPECT_EQ(b.args[1].buffer, "B");
  }
  for (Layout layout : {Layout::NN, Layout::TT}) {
    ScheduleOverrides o = pinned();
    o.swap_ab = true;
    const MatmulSchedule turned = schedule(bf16Problem(4000, 3000, 4096, layout), kH100, o);
    EXPECT_FALSE(turned.cOrientationAtLaunch());
    const codegen::KernelSource source = codegen::emit(turned);
    EXPECT_NE(source.kernel_name.find("_swapab"), std::string::npos) << source.kernel_name;
    EXPECT_EQ(testing::configValue(source.cuda, "STRAIGHT_C"), "false");
  }
  ScheduleOverrides fixed = pinned();
  fixed.specialize_shape = true;
  const MatmulSchedule compiled_in = schedule(bf16Problem(4000, 3000, 4096), kH100, fixed);
  EXPECT_FALSE(compiled_in.cOrientationAtLaunch());
  EXPECT_EQ(testing::configValue(codegen::emit(compiled_in).cuda, "TRANSPOSED_C"), "false");
}

// Kernels of at most two consumer warpgroups hold clusters of 1 and 2: tiles alone and in pairs share
// one source, the launch's name, cluster attribute and tg_problem say which. Three consumers, a
// cluster of 4 and a compiled-in shape keep their size.
TEST(RuntimeShape, ClustersOfOneAndTwoShareOneSource) {
  const MatmulProblem p = bf16Problem(4000, 3000, 4096);
  ScheduleOverrides alone = pinned();
  alone.cluster_m = 1;
  const MatmulSchedule one = schedule(p, kH100, alone), two = schedule(p, kH100, pinned());
  ASSERT_TRUE(one.params.clusterAtLaunch() && two.params.clusterAtLaunch());
  const codegen::KernelSource a = codegen::emit(one), b = codegen::emit(two);
  EXPECT_TRUE(a.cuda == b.cuda);
  EXPECT_EQ(a.kernel_name.find("_c2x1"), std::string::npos) << a.kernel_name;
  EXPECT_NE(codegen::launchName(two).find("_c2x1"), std::string::npos) << codegen::launchName(two);
  EXPECT_EQ(a.launch.cluster[0], 1u);
  EXPECT_EQ(b.launch.cluster[0], 2u);
  EXPECT_EQ(codegen::problemArgs(one, 132).cluster_m, 1);
  EXPECT_EQ(codegen::problemArgs(two, 66).cluster_m, 2);
  EXPECT_EQ(testing::configValue(a.cuda, "CLUSTER_AT_LAUNCH"), "true");
  // B's boxes are described for pairs (half the 256 rows each); a stage alone lands all of them.
  EXPECT_EQ(testing::configValue(a.cuda, "SHARERS", "operand_b"), "2");
  EXPECT_EQ(testing::configValue(a.cuda, "BOX_ROWS", "operand_b"), "128");
  EXPECT_EQ(testing::configValue(a.cuda, "STAGE_TX_BYTES_ALONE"), std::to_string((128 + 256) * 64 * 2));
  for (const auto& [cta, cluster] : {std::pair{TileShape{192, 160, 64}, int64_t{2}}, std::pair{TileShape{128, 256, 64}, int64_t{4}}}) {
    ScheduleOverrides o = pinned();
    o.cta_tile = cta;
    o.cluster_m = cluster;
    const MatmulSchedule s = schedule(p, kH100, o);
    EXPECT_FALSE(s.params.clusterAtLaunch()) << cta.toString();
    EXPECT_NE(codegen::emit(s).kernel_name.find("_c" + std::to_string(cluster) + "x1"), std::string::npos) << cta.toString();
  }
  ScheduleOverrides fixed = pinned();
  fixed.specialize_shape = true;
  EXPECT_FALSE(schedule(p, kH100, fixed).params.clusterAtLaunch());
}

TEST(RuntimeShape, SpecializedKernelsCompileTheShapeIn) {
  ScheduleOverrides o = pinned();
  o.specialize_shape = true;
  const codegen::KernelSource a = codegen::emit(schedule(bf16Problem(4096, 4096, 4096), kH100, o));
  const codegen::KernelSource b = codegen::emit(schedule(bf16Problem(4000, 4096, 4096), kH100, o));
  EXPECT_FALSE(a.cuda == b.cuda);
  EXPECT_NE(a.kernel_name.find("_4096x4096x4096"), std::string::npos) << a.kernel_name;
  EXPECT_EQ(testing::configValue(a.cuda, "SHAPE_AT_LAUNCH"), "false");
  EXPECT_EQ(testing::configValue(a.cuda, "FIXED_M"), "4096");
  EXPECT_EQ(testing::configValue(b.cuda, "FIXED_M"), "4000");
  // sm_80 kernels too, on request.
  const MatmulSchedule sm80 = schedule(bf16Problem(512, 512, 512), kH100, {.arch = Arch::Sm80, .specialize_shape = true});
  EXPECT_FALSE(sm80.params.shapeAtLaunch());
  EXPECT_TRUE(sm80.shapeLimits().empty());
  const codegen::KernelSource fixed = codegen::emit(sm80);
  EXPECT_EQ(testing::configValue(fixed.cuda, "SHAPE_AT_LAUNCH"), "false");
  EXPECT_EQ(testing::configValue(fixed.cuda, "FIXED_K"), "512");
}

// sm_80 kernels read their shape at launch like sm_90a ones: one source for every problem of a
// configuration, whose global copies step by leading dimensions read at launch (tg_gmem_a_steps).
TEST(RuntimeShape, Sm80KernelsReadTheirShapeAtLaunch) {
  const ScheduleOverrides o{.arch = Arch::Sm80,
                            .cta_tile = TileShape{128, 128, 32},
                            .stages = 3,
                            .factors = std::vector<int64_t>{4},
                            .group = GridGroup::M};
  MatmulProblem sub = bf16Problem(3000, 2000, 1000);
  sub.lda = 3072;
  sub.ldb = 3008;
  sub.ldc = 2048;
  sub.validate();
  const codegen::KernelSource a = codegen::emit(schedule(bf16Problem(4096, 4096, 4096), kH100, o));
  for (const MatmulProblem& p : {bf16Problem(4000, 4000, 4000), bf16Problem(257, 4096, 104), sub}) {
    const codegen::KernelSource b = codegen::emit(schedule(p, kH100, o));
    EXPECT_EQ(a.kernel_name, b.kernel_name) << p.toString();
    EXPECT_TRUE(a.cuda == b.cuda) << p.toString();
  }
  EXPECT_EQ(testing::configValue(a.cuda, "SHAPE_AT_LAUNCH"), "true");
  EXPECT_EQ(testing::configValue(a.cuda, "FIXED_K_TILES"), "0");
  EXPECT_NE(a.cuda.find("mn_step = static_cast<long long>(p.lda);"), std::string::npos);
  // An odd ldc makes C only 2-byte aligned: scalar stores, a configuration of its own.
  MatmulProblem odd = bf16Problem(512, 511, 512);
  odd.validate();
  EXPECT_NE(codegen::emit(schedule(odd, kH100, o)).kernel_name.find("_directc_cscalar"), std::string::npos);
}

// The argument holds the kernel problem: swap_ab turns the caller's around, a padded operand is
// read at its copy's pitch, and the work split is planned for the clusters launched.
TEST(RuntimeShape, ProblemArgumentDescribesTheKernelProblem) {
  MatmulProblem p = bf16Problem(300, 5000, 1000, Layout::NT);  // A M-major: lda = M = 300
  p.batch = 3;
  p.stride_c = 300 * 5000 + 40;
  p.align_c = 0;
  p.validate();
  const MatmulSchedule s = schedule(p, kH100, {.swap_ab = true});
  const tg_problem args = codegen::problemArgs(s, 66);
  EXPECT_EQ(args.M, 5000);
  EXPECT_EQ(args.N, 300);
  EXPECT_EQ(args.K, 1000);
  EXPECT_EQ(args.batch, 3);
  // The kernel's A is the caller's B (N-major: K rows of N = 5000) and its B the caller's A (M-major:
  // K rows of M = 300, 8-byte aligned, so read through a copy whose rows are padded to whole 128-byte
  // lines).
  EXPECT_EQ(args.lda, 5000);
  EXPECT_EQ(args.ldb, 320);
  EXPECT_EQ(args.ldc, 5000);
  EXPECT_EQ(args.batch_stride_c, 300 * 5000 + 40);
  EXPECT_EQ(args.tiles_m, ceilDiv(5000, s.params.cta_tile.m));
  EXPECT_EQ(args.tiles_n, ceilDiv(300, s.params.cta_tile.n));
  EXPECT_EQ(args.k_tiles, ceilDiv(1000, s.params.cta_tile.k));
  EXPECT_EQ(args.k_tail_steps, ceilDiv(1000 % s.params.cta_tile.k, 16));
  EXPECT_EQ(args.units * 3, s.workUnits());
  EXPECT_EQ(s.workSplit(66).dp_stride, args.split.dp_stride);  // the split of the 66 clusters launched
  EXPECT_EQ(args.split.k_tiles, args.k_tiles);
  EXPECT_EQ(args.split.dp_units + args.split.sk_total / args.k_tiles, s.workUnits());
}

// Tile coordinates are int, computed in 32 bits wherever the range analysis proves it for the grids
// the kernel accepts: the narrow grid's bound, or a wide grid in 64 bits.
TEST(RuntimeShape, TileGridArithmeticIsProvenThirtyTwoBitForNarrowGrids) {
  const codegen::KernelSource narrow = codegen::emit(schedule(bf16Problem(4096, 4096, 4096), kH100, pinned()));
  const size_t at = narrow.cuda.find("__device__ __forceinline__ void tg_tile_of(");
  ASSERT_NE(at, std::string::npos);
  const std::string body = narrow.cuda.substr(at, narrow.cuda.find("\n}\n", at) - at);
  EXPECT_NE(body.find("int& tile_m, int& tile_n"), std::string::npos) << body;
  EXPECT_EQ(body.find("long long"), std::string::npos) << body;
  // 2^31 - 1 rows by 64: the kernel computes C^T, 8.4 million tiles along its N.
  const MatmulSchedule tall = schedule(bf16Problem(2147483647, 64, 64), kH100);
  EXPECT_TRUE(tall.params.wide_tile_grid);
  const codegen::KernelSource wide = codegen::emit(tall);
  EXPECT_NE(wide.kernel_name.find("_widegrid"), std::string::npos) << wide.kernel_name;
  EXPECT_NE(wide.cuda.find("int& tile_m, int& tile_n"), std::string::npos);
  // Params that promise a narrow grid for a problem past it are refused before code is generated.
  MatmulParams params = tall.params;
  params.wide_tile_grid = false;
  try {
    scheduleWith(tall.problem, kH100, params);
    ADD_FAILURE() << "a narrow tile grid took 8.4 million tiles";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("past the 16384"), std::string::npos) << e.what();
  }
}

TEST(RuntimeShape, LeadingDimensionsAndStridesSpanTheBuffers) {
  MatmulProblem p = bf16Problem(10, 20, 30, Layout::NT);  // A M-major (K rows of M), B N-major
  p.batch = 2;
  p.lda = 16;
  p.ldb = 24;
  p.ldc = 32;
  p.stride_a = 1000;
  p.stride_b = p.stride_c = 0;  // packed again: validate() filled them for the old leading dimensions
  p.align_a = p.align_b = p.align_c = 0;
  p.validate();
  EXPECT_EQ(p.rowsA(), 30);
  EXPECT_EQ(p.contiguousA(), 10);
  EXPECT_EQ(p.batchStrideA(), 1000);
  EXPECT_EQ(p.batchStrideB(), 24 * 30);  // packed batches over padded rows
  EXPECT_EQ(p.spanA(), 1000 + 29 * 16 + 10);
  EXPECT_EQ(p.spanC(), 32 * 10 + 9 * 32 + 20);
  EXPECT_FALSE(p.packed());
  EXPECT_EQ(p.align_a, 8);   // 16 and 1000 are multiples of 8
  EXPECT_EQ(p.align_b, 8);
  const MatmulProblem swapped = swapOperands(p);
  EXPECT_EQ(swapped.lda, 24);
  EXPECT_EQ(swapped.stride_b, 1000);
  EXPECT_TRUE(bf16Problem(64, 64, 64).packed());
}

// The one-wave fit's tile widths share kernels that read the width at launch
// (MatmulParams::width_at_launch), one for each run of widths whose tiles fit as many stages:
// shared memory and slabs are the widest's, the launch passes the width (tg_problem::bn) and B's
// tensor map boxes the tile's rows.
TEST(RuntimeShape, OneWaveWidthsShareOneKernel) {
  std::set<int64_t> widths;
  std::map<std::string, codegen::KernelSource> kernels;
  // M x 4096 x 4096 TN on 132 SMs: C^T in 32 rows of 128-row tiles, as wide as fills one wave. On
  // an H100's 227 KiB, 128x112 to 128x128 fit 6 stages, to 128x176 5, to 128x256 4.
  const std::map<int64_t, std::string> kernel_of = {{112, "128x112to128x64_s6"}, {120, "128x112to128x64_s6"},
                                                    {144, "128x136to176x64_s5"}, {160, "128x136to176x64_s5"},
                                                    {176, "128x136to176x64_s5"}, {200, "128x184to256x64_s4"},
                                                    {232, "128x184to256x64_s4"}, {240, "128x184to256x64_s4"}};
  for (int64_t m : {400, 480, 560, 620, 700, 800, 900, 940}) {
    const MatmulSchedule s = schedule(bf16Problem(m, 4096, 4096), kH100);
    ASSERT_TRUE(s.params.width_at_launch) << m;
    const int64_t width = s.params.cta_tile.n;
    widths.insert(width);
    const codegen::KernelSource source = codegen::emit(s);
    ASSERT_TRUE(kernel_of.count(width)) << width;
    EXPECT_EQ(source.kernel_name, "tilegrid_sm90_bf16_tn_" + kernel_of.at(width) + "_smerge_sk_swapab");
    const codegen::KernelSource& first = kernels.emplace(source.kernel_name, source).first->second;
    EXPECT_TRUE(source.cuda == first.cuda) << m;
    EXPECT_EQ(source.launch.dynamic_smem_bytes, first.launch.dynamic_smem_bytes);
    EXPECT_EQ(testing::configValue(source.cuda, "WN"), std::to_string(s.params.widest_width));
    EXPECT_EQ(testing::configValue(source.cuda, "NARROWEST_WN"), std::to_string(s.params.narrowest_width));
    EXPECT_EQ(codegen::problemArgs(s, s.ctas()).bn, width);
    EXPECT_EQ(codegen::problemArgs(s, s.ctas()).tiles_n, (m + width - 1) / width);
    EXPECT_NE(codegen::launchName(s).find("_n" + std::to_string(width)), std::string::npos) << codegen::launchName(s);
    ASSERT_TRUE(source.args[2].tensor_map.has_value());
    EXPECT_EQ(source.args[2].tensor_map->box, (std::vector<uint32_t>{64, static_cast<uint32_t>(width)}));
  }
  EXPECT_EQ(widths.size(), 8u);
  EXPECT_EQ(kernels.size(), 3u);
  EXPECT_EQ(testing::configValue(kernels.begin()->second.cuda, "WIDTH_AT_LAUNCH"), "true");
  // Compiled in, each width is its own kernel with the stages its tile leaves room for.
  ScheduleOverrides fixed;
  fixed.width_at_launch = false;
  const MatmulSchedule own = schedule(bf16Problem(400, 4096, 4096), kH100, fixed);
  EXPECT_FALSE(own.params.width_at_launch);
  EXPECT_NE(codegen::emit(own).kernel_name.find("_128x112x64_s6_"), std::string::npos) << codegen::emit(own).kernel_name;
  const testing::CliResult off =
      testing::runCli({"emit", "--m", "400", "--n", "4096", "--k", "4096", "--width-at-launch", "off"});
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_NE(off.out.find("tilegrid_sm90_bf16_tn_128x112x64_s6_"), std::string::npos);
  const testing::CliResult paired = testing::runCli(
      {"plan", "--m", "1000", "--n", "1000", "--k", "1000", "--cta-tile", "128,160,64", "--cluster", "2", "--width-at-launch", "on"});
  EXPECT_EQ(paired.status, 2);
  EXPECT_NE(paired.err.find("width_at_launch"), std::string::npos) << paired.err;
  // Refused: pairs (B multicast), an MN-major B, a shape compiled in, a width outside the kernel's.
  const auto refused = [](const MatmulProblem& problem, ScheduleOverrides o) {
    o.width_at_launch = true;
    try {
      schedule(problem, kH100, o);
      ADD_FAILURE() << problem.toString() << " accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("width_at_launch"), std::string::npos) << e.what();
    }
  };
  ScheduleOverrides tile;
  tile.cta_tile = TileShape{128, 160, 64};
  tile.cluster_m = 2;
  refused(bf16Problem(1000, 1000, 1000), tile);
  tile.cluster_m = 1;
  refused(bf16Problem(1000, 1000, 1000, Layout::NT), tile);
  ScheduleOverrides specialized;
  specialized.specialize_shape = true;
  refused(bf16Problem(400, 4096, 4096), specialized);
  tile.swap_ab = false;
  MatmulParams outside = chooseParams(bf16Problem(1000, 1000, 1000), kH100, [&] {
    ScheduleOverrides o = tile;
    o.width_at_launch = true;
    return o;
  }());
  EXPECT_TRUE(outside.width_at_launch);
  EXPECT_EQ(outside.narrowest_width, 136);
  EXPECT_EQ(outside.widest_width, 176);
  outside.narrowest_width = 168;
  EXPECT_THROW(outside.validate(bf16Problem(1000, 1000, 1000), kH100), UserError);
}

TEST(RuntimeShape, KernelsCommandCountsDistinctKernelsOverARange) {
  const testing::CliResult r = testing::runCli({"kernels", "--m", "1:256:5", "--n", "4096", "--k", "4096", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["shapes"], 52);
  int64_t shapes = 0;
  for (const auto& k : j["list"]) shapes += k["shapes"].get<int64_t>();
  EXPECT_EQ(shapes, 52);
  EXPECT_GE(j["kernels"].get<int64_t>(), 1);
  EXPECT_LT(j["kernels"].get<int64_t>(), 52);
  const testing::CliResult bad = testing::runCli({"kernels", "--m", "8:1", "--n", "64", "--k", "64"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--m: '8:1'"), std::string::npos) << bad.err;
}

// An application sweeping M from 1 to 8192 at 4096 x 4096 needs at most 17 kernels, TN and NT; one
// sweeping N at most 21. One of each TN range is the dot kernel cut into blocks that takes one row
// against the weight (M or N of 1). The N range has more: at N of 64 or less the launch choices are compiled in
// (decode sizes, chooseFixedChoices), and there C's rows start on 16 bytes at some N and not at others,
// so each narrow width has a kernel storing C by TMA and one storing it by the threads (over M the
// kernel computes C^T, whose rows are N long, and stores it by TMA throughout). Each of those holds one
// way of storing and compiles in about a third of the time of a kernel holding both, so the range's
// compile time stays. Every 7th size here meets 17 and 17 kernels TN, 12 and 14 NT (the full ranges:
// 17, 21, 12 and 17, `tilegrid kernels`). The command also checks that no kernel name stands for two
// sources.
TEST(RuntimeShape, SweepingMNeedsAtMostSeventeenKernelsAndSweepingNTwentyOne) {
  for (const char* layout : {"TN", "NT"}) {
    for (bool along_m : {true, false}) {
      const std::string range = "1:8192:7";
      const testing::CliResult r =
          testing::runCli({"kernels", "--m", along_m ? range : "4096", "--n", along_m ? "4096" : range, "--k", "4096",
                           "--layout", layout, "--arch", "sm_90", "--format", "json"});
      ASSERT_EQ(r.status, 0) << r.err;
      const auto j = nlohmann::json::parse(r.out);
      EXPECT_LE(j["kernels"].get<int64_t>(), along_m ? 17 : 21) << layout << (along_m ? " over M" : " over N") << "\n" << r.out;
    }
  }
}

TEST(RuntimeShape, OutputDtypeDefaultsToTheInputs) {
  const testing::CliResult r = testing::runCli({"plan", "--m", "64", "--n", "64", "--k", "64", "--dtype", "fp16", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["problem"]["out_dtype"], "fp16");
  const testing::CliResult f32 =
      testing::runCli({"plan", "--m", "64", "--n", "64", "--k", "64", "--dtype", "fp16", "--out-dtype", "fp32", "--format", "json"});
  ASSERT_EQ(f32.status, 0) << f32.err;
  EXPECT_EQ(nlohmann::json::parse(f32.out)["problem"]["out_dtype"], "fp32");
}

}  // namespace
}  // namespace tilegrid::scheduler
