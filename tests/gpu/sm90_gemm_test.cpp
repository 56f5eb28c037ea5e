// Generated sm_90a GEMMs (TMA + wgmma, persistent, warp-specialized) on the GPU: against an fp64 CPU
// reference for edge tiles, K tails, misaligned operands, batches, dtypes and grid methods, and
// against cuBLAS for the shapes issue #6 names, every layout.
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"
#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

class Sm90Gemm : public ::testing::TestWithParam<GemmCase> {};
TEST_P(Sm90Gemm, MatchesFp64Reference) { expectCorrect(GetParam(), runtime::Reference::CpuFp64); }

class Sm90VsCublas : public ::testing::TestWithParam<GemmCase> {};
TEST_P(Sm90VsCublas, MatchesCublas) { expectCorrect(GetParam(), runtime::Reference::Cublas); }

INSTANTIATE_TEST_SUITE_P(Cases, Sm90Gemm, ::testing::ValuesIn(sm90RunCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Shapes, Sm90VsCublas, ::testing::ValuesIn(sm90CublasCases()), caseName);
INSTANTIATE_TEST_SUITE_P(StreamK, Sm90VsCublas, ::testing::ValuesIn(sm90StreamKCases()), caseName);
INSTANTIATE_TEST_SUITE_P(PingPong, Sm90VsCublas, ::testing::ValuesIn(sm90PingPongCases()), caseName);

// Stream-K's flags and accumulated sums are left zeroed by every launch (the next one relies on it),
// and repeated launches on the same workspace stay correct: for the first case of each way of adding
// up cut units (on a 132-SM H100).
class Sm90StreamKWorkspace : public ::testing::TestWithParam<scheduler::SplitReduction> {};

INSTANTIATE_TEST_SUITE_P(Reductions, Sm90StreamKWorkspace,
                         ::testing::Values(scheduler::SplitReduction::InTurn, scheduler::SplitReduction::InSlices,
                                           scheduler::SplitReduction::Accumulated),
                         [](const auto& p) { return std::string(scheduler::toString(p.param)); });

// A kernel that reads its shape at launch is compiled once and serves every problem of its
// configuration: shapes with edge tiles and K tails, sub-matrices of wider buffers, batches with
// gaps between them. Each is checked against cuBLAS, and nothing between C's rows is written.
TEST(Sm90RuntimeShape, OneCompiledKernelServesEveryProblemOfItsConfiguration) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  scheduler::ScheduleOverrides o;
  o.cta_tile = scheduler::TileShape{128, 256, 64};
  o.cluster_m = 2;
  o.stream_k = true;
  o.swap_ab = false;
  o.method = scheduler::GridMethod::SwizzleMerge;
  o.factors = std::vector<int64_t>{8};
  o.group = scheduler::GridGroup::N;
  // The launch choices read at launch too: problems whose M and N are at most 2048 would otherwise
  // compile them in (chooseFixedChoices).
  o.launch_choices_compiled = false;
  const auto bf16 = scheduler::DType::BF16;
  const std::vector<scheduler::MatmulProblem> problems = {
      makeProblem(2048, 2048, 2048, scheduler::Layout::TN, bf16, bf16),
      makeProblem(1000, 2000, 3000, scheduler::Layout::TN, bf16, bf16),
      makeProblem(257, 4096, 104, scheduler::Layout::TN, bf16, bf16),
      withStrides(makeProblem(1000, 2000, 3000, scheduler::Layout::TN, bf16, bf16), 3072, 3008, 2048, 0, 0, 0)};
  std::vector<scheduler::MatmulSchedule> schedules;
  std::vector<codegen::KernelSource> sources;
  for (const auto& p : problems) {
    schedules.push_back(scheduler::schedule(p, device, o));
    sources.push_back(codegen::emit(schedules.back()));
    EXPECT_TRUE(sources.back().cuda == sources.front().cuda) << p.toString();
  }
  runtime::KernelCache cache;
  const auto compiled = cache.get(sources.front(), device.arch());
  for (size_t i = 0; i < problems.size(); ++i) {
    EXPECT_EQ(cache.get(sources[i], device.arch()).get(), compiled.get()) << "compiled again for " << problems[i].toString();
    runtime::RunOptions options;
    options.iterations = 0;
    const runtime::RunResult result = runtime::runMatmul(schedules[i], sources[i], options);
    ASSERT_TRUE(result.errors.has_value());
    EXPECT_TRUE(result.errors->passed) << problems[i].toString() << ": norm rel " << result.errors->norm_rel
                                       << ", written between rows " << result.errors->gap_writes;
  }
  // Batches with gaps between them, C too.
  const auto batched = withStrides(makeProblem(1000, 700, 500, scheduler::Layout::NT, bf16, bf16, 3), 1008, 704, 720,
                                   1008 * 500 + 64, 704 * 500 + 8, 720 * 1000 + 16);
  const auto s = scheduler::schedule(batched, device);
  runtime::RunOptions options;
  options.iterations = 0;
  const runtime::RunResult result = runtime::runMatmul(s, codegen::emit(s), options);
  ASSERT_TRUE(result.errors.has_value());
  EXPECT_TRUE(result.errors->passed) << batched.toString() << ": norm rel " << result.errors->norm_rel
                                     << ", written between rows " << result.errors->gap_writes;
}

// Runs schedules against cuBLAS through one kernel cache, expecting every problem of one
// configuration to find the kernel first compiled for its name (a kernel reading its choice at
// launch compiles once).
class SharedKernelRuns {
 public:
  explicit SharedKernelRuns(const scheduler::DeviceSpec& device) : device_(device) {}

  void run(const scheduler::MatmulSchedule& s) {
    const codegen::KernelSource source = codegen::emit(s);
    const auto kernel = cache_.get(source, device_.arch());
    const auto first = compiled_.emplace(source.kernel_name, kernel).first->second;
    EXPECT_EQ(kernel.get(), first.get()) << "compiled again for " << codegen::launchName(s);
    runtime::RunOptions options;
    options.iterations = 0;
    options.reference = runtime::Reference::Cublas;
    const runtime::RunResult result = runtime::runMatmul(s, source, options);
    ASSERT_TRUE(result.errors.has_value());
    EXPECT_TRUE(result.errors->passed) << s.problem.toString() << " (" << codegen::launchName(s) << "): norm rel "
                                       << result.errors->norm_rel << ", written between rows " << result.errors->gap_writes;
  }
  // Kernels compiled so far.
  size_t kernels() const { return compiled_.size(); }

 private:
  const scheduler::DeviceSpec& device_;
  runtime::KernelCache cache_;
  std::map<std::string, std::shared_ptr<const runtime::CompiledKernel>> compiled_;
};

// Kernels that hold several tile widths, the launch picking one (MatmulParams::width_at_launch):
// each width, with edge tiles, C stored by TMA and by the threads (odd N), and stream-K over
// several waves, against cuBLAS; each kernel compiled once for all its widths.
TEST(Sm90WidthAtLaunch, OneCompiledKernelRunsEveryWidth) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  const auto bf16 = scheduler::DType::BF16;
  std::vector<scheduler::MatmulSchedule> schedules = {
      scheduler::schedule(makeProblem(400, 4096, 4096, scheduler::Layout::TN, bf16, bf16), device)};
  for (int64_t width : {112, 120, 168, 200, 232, 256}) {
    scheduler::ScheduleOverrides o;
    o.cta_tile = scheduler::TileShape{128, width, 64};
    o.cluster_m = 1;
    o.swap_ab = false;
    o.width_at_launch = true;
    schedules.push_back(scheduler::schedule(makeProblem(1000, 3 * width + 5, 1000, scheduler::Layout::TN, bf16, bf16), device, o));
    schedules.push_back(scheduler::schedule(makeProblem(4096, 20 * width - 8, 520, scheduler::Layout::TN, bf16, bf16), device, o));
  }
  SharedKernelRuns runs(device);
  for (const scheduler::MatmulSchedule& s : schedules) {
    ASSERT_TRUE(s.params.width_at_launch) << s.params.toString();
    runs.run(s);
  }
}

// The trimmed 64-row tiles' kernel (widths 64 to 128, one consumer warpgroup): the widths the rule
// picks over N, with odd N (C stored by the threads) and K not a multiple of the tile's, against
// cuBLAS, all from one compiled kernel.
TEST(Sm90WidthAtLaunch, TrimmedNarrowTilesShareOneKernel) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  const auto bf16 = scheduler::DType::BF16;
  SharedKernelRuns runs(device);
  for (int64_t n : {129, 160, 200, 231, 240}) {
    for (int64_t k : {4096, 1040}) {
      const auto s = scheduler::schedule(makeProblem(4096, n, k, scheduler::Layout::TN, bf16, bf16), device);
      ASSERT_TRUE(s.params.width_at_launch && s.params.cta_tile.m == 64) << s.params.toString();
      runs.run(s);
    }
  }
  EXPECT_EQ(runs.kernels(), 1u);
}

// One kernel reading the traversal's factor, its group and the cluster size at launch
// (MatmulParams::factorAtLaunch, clusterAtLaunch): every factor it holds and both groups, over tile
// grids the factors do not divide, alone and in pairs, against cuBLAS; compiled once for all of them.
TEST(Sm90FactorAtLaunch, OneCompiledKernelWalksEveryFactor) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  const auto bf16 = scheduler::DType::BF16;
  SharedKernelRuns runs(device);
  for (int64_t cluster : {1, 2}) {
    for (int64_t factor = 1; factor <= scheduler::kMaxFactorAtLaunch; factor *= 2) {
      for (scheduler::GridGroup group : {scheduler::GridGroup::M, scheduler::GridGroup::N}) {
        scheduler::ScheduleOverrides o;
        o.cta_tile = scheduler::TileShape{128, 128, 64};
        o.cluster_m = cluster;
        o.factors = std::vector<int64_t>{factor};
        o.group = group;
        o.launch_choices_compiled = false;
        const auto s = scheduler::schedule(makeProblem(2700, 2300, 520, scheduler::Layout::TN, bf16, bf16), device, o);
        ASSERT_TRUE(s.params.factorAtLaunch() && s.params.clusterAtLaunch()) << s.params.toString();
        runs.run(s);
      }
    }
  }
  EXPECT_EQ(runs.kernels(), 1u);  // alone and in pairs: one kernel (MatmulParams::clusterAtLaunch)
}

// Kernels holding both orientations of C (MatmulSchedule::cOrientationAtLaunch): TN and NT problems
// computing C and C^T, C stored by TMA and by the threads (odd N), two and three consumer
// warpgroups, against cuBLAS; each configuration compiled once for both orientations.
TEST(Sm90OrientationAtLaunch, OneCompiledKernelStoresCBothWays) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  const auto bf16 = scheduler::DType::BF16;
  SharedKernelRuns runs(device);
  for (scheduler::Layout layout : {scheduler::Layout::TN, scheduler::Layout::NT}) {
    for (scheduler::TileShape cta : {scheduler::TileShape{128, 128, 64}, scheduler::TileShape{192, 160, 64}}) {
      for (int64_t n : {1000, 1001}) {
        for (bool swap_ab : {false, true}) {
          scheduler::ScheduleOverrides o;
          o.cta_tile = cta;
          o.cluster_m = 2;
          o.swap_ab = swap_ab;
          o.launch_choices_compiled = false;  // a kernel this short would otherwise compile them in
          const auto s = scheduler::schedule(makeProblem(1160, n, 520, layout, bf16, bf16), device, o);
          ASSERT_TRUE(s.cOrientationAtLaunch()) << s.params.toString();
          runs.run(s);
        }
      }
    }
  }
  // A kernel per layout and tile, whichever the orientation; 192x160 (three consumers) carries one
  // way of storing C, so odd N takes a second kernel there.
  EXPECT_EQ(runs.kernels(), 6u);
}

TEST_P(Sm90StreamKWorkspace, RepeatedLaunchesLeaveTheZeroedAreaZero) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  const std::vector<GemmCase> cases = sm90StreamKCases();
  const auto found = std::find_if(cases.begin(), cases.end(), [&](const GemmCase& c) {
    return scheduler::schedule(c.problem, device, c.overrides).workSplit().reduction == GetParam();
  });
  if (found == cases.end()) GTEST_SKIP() << "no stream-K case adds up its sums " << toString(GetParam()) << " on " << device.toString();
  const GemmCase& c = *found;
  const auto schedule = scheduler::schedule(c.problem, device, c.overrides);
  runtime::MatmulBuffers buffers(c.problem, 7);
  runtime::MatmulLaunch launch(Gemm(schedule), buffers);
  ASSERT_NE(launch.workspace(), nullptr);
  runtime::Stream stream;
  const std::vector<float> reference = runtime::cublasReference(buffers, stream.get());
  const size_t zero_words = codegen::workspaceZeroBytes(device) / 4;
  std::vector<uint8_t> first_c;
  for (int round = 0; round < 3; ++round) {
    const runtime::ErrorStats e = runtime::checkLaunch(launch, buffers, reference, stream.get());
    EXPECT_TRUE(e.passed) << c.label() << " launch " << round << ": norm rel " << e.norm_rel << ", max rel " << e.max_rel;
    // Sums added in an order the plan fixes give the same bits every launch.
    const std::vector<uint8_t> c_bytes = buffers.c.toHost<uint8_t>();
    if (round == 0) first_c = c_bytes;
    if (GetParam() != scheduler::SplitReduction::Accumulated) {
      EXPECT_TRUE(c_bytes == first_c) << c.label() << " launch " << round << " changed C's bits";
    }
    const std::vector<uint32_t> words = launch.workspace()->toHost<uint32_t>();
    ASSERT_GE(words.size(), zero_words);
    for (size_t i = 0; i < zero_words; ++i) {
      ASSERT_EQ(words[i], 0u) << c.label() << " launch " << round << " left word " << i << " of the zeroed area set";
    }
    // Sums stored whole go after the zeroed area; accumulated ones never leave it.
    const bool stored = std::any_of(words.begin() + static_cast<std::ptrdiff_t>(zero_words), words.end(),
                                    [](uint32_t w) { return w != 0; });
    EXPECT_EQ(stored, GetParam() != scheduler::SplitReduction::Accumulated) << c.label();
  }
}

}  // namespace
}  // namespace tilegrid::testing
