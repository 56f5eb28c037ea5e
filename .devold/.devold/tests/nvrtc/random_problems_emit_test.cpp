// The random problems the GPU suite runs (gpu/random_shapes_gpu_test.cpp), scheduled for the H100
// preset: each default schedule must emit and compile without spills or ptxas warnings, on a
// machine with no GPU.
#include <gtest/gtest.h>

#include "tilegrid/runtime/kernel_cache.h"
#include "support/compile_cases.h"
#include "support/gemm_cases.h"

namespace tilegrid::testing {
namespace {

void expectRandomProblemsCompile(scheduler::Arch arch) {
  const std::vector<GemmCase> cases = randomDefaultCases(arch, kRandomCases, randomSeed(arch));
  runtime::KernelCache cache;
  const std::string failures = compileCases(cases, "sm_90", 1, cache);
  EXPECT_TRUE(failures.empty()) << failures;
}

TEST(RandomProblems, Sm80DefaultSchedulesOnAnH100Compile) { expectRandomProblemsCompile(scheduler::Arch::Sm80); }
TEST(RandomProblems, Sm90DefaultSchedulesOnAnH100Compile) { expectRandomProblemsCompile(scheduler::Arch::Sm90); }

}  // namespace
}  // namespace tilegrid::testing
