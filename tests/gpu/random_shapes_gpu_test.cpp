// Problems drawn at random (tests/support/gemm_cases.h), each on the schedule the heuristics pick for
// this GPU, checked against cuBLAS. The lists elsewhere pin tiles and traversals; this one meets the
// heuristics where no list looked. TILEGRID_RANDOM_SEED and TILEGRID_RANDOM_CASES draw other or more
// problems; a failure names its seed and problem, so `tilegrid run` can repeat it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "codegen/emit.h"
#include "runtime/kernel_cache.h"
#include "runtime/matmul_run.h"
#include "support/gemm_cases.h"
#include "support/gpu_device.h"

namespace tilegrid::testing {
namespace {

uint64_t envOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  return value ? std::strtoull(value, nullptr, 10) : fallback;
}

void checkRandomProblems(scheduler::Arch arch) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  if (arch == scheduler::Arch::Sm90 && device.arch() != scheduler::Arch::Sm90) {
    GTEST_SKIP() << "sm_90a kernels need an sm_90 device; this one is " << device.toString();
  }
  const uint64_t seed = envOr("TILEGRID_RANDOM_SEED", randomSeed(arch));
  const int count = static_cast<int>(envOr("TILEGRID_RANDOM_CASES", kRandomCases));
  struct Drawn {
    GemmCase gemm;
    scheduler::MatmulSchedule schedule;
    codegen::KernelSource source;
  };
  std::vector<Drawn> drawn;
  for (const GemmCase& c : randomDefaultCases(arch, count, seed)) {
    auto schedule = scheduler::schedule(c.problem, device, c.overrides);
    auto source = codegen::emit(schedule);
    drawn.push_back({c, std::move(schedule), std::move(source)});
  }
  std::vector<const codegen::KernelSource*> sources;
  for (const Drawn& d : drawn) sources.push_back(&d.source);
  runtime::KernelCache::global().getAll(sources, device.arch());  // in parallel, before the runs
  runtime::RunOptions options;
  options.iterations = 0;
  options.reference = runtime::Reference::Cublas;
  for (const Drawn& d : drawn) {
    const runtime::RunResult result = runtime::runMatmul(d.schedule, d.source, options);
    ASSERT_TRUE(result.errors.has_value());
    const runtime::ErrorStats& e = *result.errors;
    EXPECT_TRUE(e.passed) << "seed " << seed << ", " << d.gemm.label() << " (" << d.schedule.params.toString()
                          << "): norm rel " << e.norm_rel << ", max rel " << e.max_rel << ", non-finite "
                          << e.non_finite << " (tolerance " << e.tolerance << ")";
  }
}

TEST(RandomProblems, Sm80DefaultSchedulesMatchCublas) { checkRandomProblems(scheduler::Arch::Sm80); }
TEST(RandomProblems, Sm90DefaultSchedulesMatchCublas) { checkRandomProblems(scheduler::Arch::Sm90); }

}  // namespace
}  // namespace tilegrid::testing
