#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <tuple>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "support/compile_cases.h"
#include "support/gemm_cases.h"
#include "support/kernel_config.h"

namespace tilegrid::codegen {
namespace {

TEST(Sm80Emit, EveryVariantCompilesWithoutSpillsOrWarnings) {
  const auto cases = testing::sm80CompileCases();
  ASSERT_GE(cases.size(), 96u);
  runtime::KernelCache cache;
  const std::string failures = testing::compileCases(cases, "sm_80", 1, cache);
  EXPECT_TRUE(failures.empty()) << failures;
  // Every case is a configuration of its own (the shape is read at launch, so cases differing only
  // in it would share a kernel), and each was compiled.
  std::set<std::string> sources;
  const auto device = scheduler::DeviceSpec::preset("sm_80");
  for (const auto& c : cases) sources.insert(emit(scheduler::schedule(c.problem, device, c.overrides)).cuda);
  EXPECT_EQ(sources.size(), cases.size());
  EXPECT_GE(cache.stats().compiles, static_cast<int64_t>(cases.size()));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string withoutName(std::string line, const std::string& name) {
  for (size_t p = line.find(name); p != std::string::npos; p = line.find(name)) line.replace(p, name.size(), "KERNEL");
  return line;
}

// The H100 defaults: each of the heuristic's sm_80 tiles, bf16 and fp32 output, C rows 16-byte
// aligned or not. The epilogue goes through the slabs exactly when the params say so, and every
// kernel compiles without spills inside the device's shared memory.
TEST(Sm80Emit, DefaultTilesAndEpiloguesOnAnH100CompileWithoutSpills) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  scheduler::ScheduleOverrides o;
  o.arch = scheduler::Arch::Sm80;
  std::set<std::string> tiles;
  int staged = 0, direct = 0;
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{4096, 4096, 4096}, {2048, 1024, 1024}, {1000, 1000, 1000},
                         {256, 256, 4096}, {4096, 4097, 512}}) {
    for (auto out : {scheduler::DType::BF16, scheduler::DType::FP32}) {
      const auto problem = testing::makeProblem(m, n, k, scheduler::Layout::TN, scheduler::DType::BF16, out);
      const auto schedule = scheduler::schedule(problem, device, o);
      const KernelSource source = emit(schedule);
      const bool slabs = schedule.params.stagedEpilogue(schedule.problem);
      (slabs ? staged : direct) += 1;
      tiles.insert(schedule.params.cta_tile.toString());
      EXPECT_EQ(testing::configValue(source.cuda, "STAGED_EPILOGUE"), slabs ? "true" : "false") << source.kernel_name;
      EXPECT_LE(static_cast<int64_t>(source.launch.dynamic_smem_bytes), device.smem_per_block) << source.kernel_name;
      const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
      EXPECT_EQ(compiled.statsFor().spill_stores + compiled.statsFor().spill_loads, 0) << source.kernel_name;
    }
  }
  EXPECT_EQ(tiles.size(), 4u);  // 128x256, 128x128, 64x128, 64x64
  EXPECT_GT(staged, 0);
  EXPECT_GT(direct, 0);  // N = 4097: C rows are not 16-byte aligned
}

// The H100 defaults at 4097x4097x4096: every misaligned operand (M-major A, N-major B) is read
// through a padded copy with 16-byte pieces and the 128x256 tile, without spills; only C, which is
// never copied, keeps its 2-byte rows.
TEST(Sm80Emit, PaddedOperandsOnAnH100CompileWithoutSpills) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  for (auto layout : {scheduler::Layout::TN, scheduler::Layout::NT, scheduler::Layout::NN, scheduler::Layout::TT}) {
    const auto problem = testing::makeProblem(4097, 4097, 4096, layout, scheduler::DType::BF16, scheduler::DType::BF16);
    const auto schedule = scheduler::schedule(problem, device, {.arch = scheduler::Arch::Sm80});
    const auto& p = schedule.params;
    EXPECT_EQ(p.pad_a, scheduler::majorOfA(layout) == scheduler::Major::MN) << p.toString();
    EXPECT_EQ(p.pad_b, scheduler::majorOfB(layout) == scheduler::Major::MN) << p.toString();
    EXPECT_EQ(p.cta_tile, (scheduler::TileShape{128, 256, 64})) << p.toString();
    const KernelSource source = emit(schedule);
    EXPECT_EQ(source.args[1].padded.has_value(), p.pad_a);  // after the problem
    EXPECT_EQ(source.args[2].padded.has_value(), p.pad_b);
    const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
    EXPECT_EQ(compiled.statsFor().spill_stores + compiled.statsFor().spill_loads, 0) << source.kernel_name;
  }
}

// Persistent sm_80 kernels (--persistent on): a grid of one CTA per SM, each walking units.
TEST(Sm80Emit, PersistentKernelsCompileWithoutSpillsAndLaunchOneCtaPerSm) {
  const auto device = scheduler::DeviceSpec::preset("sm_90");
  for (auto layout : {scheduler::Layout::TN, scheduler::Layout::NT, scheduler::Layout::NN, scheduler::Layout::TT}) {
    const auto problem = testing::makeProblem(4000, 3000, 1000, layout, scheduler::DType::BF16, scheduler::DType::BF16, 2);
    scheduler::ScheduleOverrides o;
    o.arch = scheduler::Arch::Sm80;
    o.persistent = true;
    o.method = scheduler::GridMethod::SplitMerge;  // overhanging units are skipped inside the loop
    o.factors = std::vector<int64_t>{3};
    const auto schedule = scheduler::schedule(problem, device, o);
    const KernelSource source = emit(schedule);
    EXPECT_EQ(source.launch.grid[0], static_cast<uint32_t>(device.sm_count));
    EXPECT_TRUE(source.launch.persistent);
    EXPECT_EQ(testing::configValue(source.cuda, "PERSISTENT"), "true");
    const auto compiled = runtime::compile(source, scheduler::Arch::Sm90);
    EXPECT_EQ(compiled.statsFor().spill_stores, 0) << source.kernel_name;
  }
}

TEST(Sm80Emit, GridTraversalChangesOnlyTheTileIndexFunction) {
  const auto problem = testing::makeProblem(1000, 700, 256, scheduler::Layout::TN, scheduler::DType::BF16,
                                            scheduler::DType::BF16);
  const auto device = scheduler::DeviceSpec::preset("sm_80");
  // Factor 3 is compiled in (not a power of two the kernel takes at launch), so both kernels carry
  // the same configuration block.
  scheduler::ScheduleOverrides a{.arch = scheduler::Arch::Sm80, .method = scheduler::GridMethod::SwizzleMerge,
                                 .factors = std::vector<int64_t>{3}};
  scheduler::ScheduleOverrides b = a;
  b.method = scheduler::GridMethod::SplitMerge;
  KernelSource ka = emit(scheduler::schedule(problem, device, a));
  KernelSource kb = emit(scheduler::schedule(problem, device, b));
  EXPECT_NE(ka.kernel_name, kb.kernel_name);
  EXPECT_NE(ka.launch.grid[0], kb.launch.grid[0]);  // split-merge launches the overhang
  // Line by line, with the kernel names made equal, the sources differ only inside tg_tile_of, its
  // comment, and the header comment that prints the params.
  const auto la = lines(ka.cuda), lb = lines(kb.cuda);
  ASSERT_EQ(la.size(), lb.size());
  bool in_tile_of = false;
  int differing = 0;
  for (size_t i = 0; i < la.size(); ++i) {
    if (la[i].find("tg_tile_of(") != std::string::npos) in_tile_of = true;
    const std::string x = withoutName(la[i], ka.kernel_name);
    const std::string y = withoutName(lb[i], kb.kernel_name);
    if (x != y) {
      ++differing;
      EXPECT_TRUE(in_tile_of || i == 0 || x.rfind("// work unit (rank 0: no clusters) -> output tile", 0) == 0)
          << "line " << i << " differs outside the tile index function:\n" << x << "\n" << y;
    }
    if (in_tile_of && la[i] == "}") in_tile_of = false;
  }
  EXPECT_GE(differing, 3);  // tile_m, tile_n and valid
  EXPECT_NE(kb.cuda.find("valid = "), std::string::npos);
}

}  // namespace
}  // namespace tilegrid::codegen
