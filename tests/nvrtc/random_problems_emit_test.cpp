// The random problems the GPU suite runs (gpu/random_shapes_gpu_test.cpp), plain and with fused
// epilogues, scheduled for the H100 preset: each default schedule must emit and compile without
// spills or ptxas warnings, on a machine with no GPU.
#include <gtest/gtest.h>

#include "tilegrid/runtime/kernel_cache.h"
#include "support/compile_cases.h"
#include "support/gemm_cases.h"

namespace tilegrid::testing {
namespace {

void expectCompile(const std::vector<GemmCase>& cases) {
  runtime::KernelCache cache;
  const std::string failures = compileCases(cases, "sm_90", 1, cache);
  EXPECT_TRUE(failures.empty()) << failures;
}

TEST(RandomProblems, Sm80DefaultSchedulesOnAnH100Compile) {
  expectCompile(randomDefaultCases(scheduler::Arch::Sm80, kRandomCases, randomSeed(scheduler::Arch::Sm80)));
}
TEST(RandomProblems, Sm90DefaultSchedulesOnAnH100Compile) {
  expectCompile(randomDefaultCases(scheduler::Arch::Sm90, kRandomCases, randomSeed(scheduler::Arch::Sm90)));
}
TEST(RandomProblems, Sm80EpiloguesOnAnH100Compile) {
  expectCompile(randomEpilogueCases(scheduler::Arch::Sm80, kRandomEpilogueCases, randomSeed(scheduler::Arch::Sm80)));
}
TEST(RandomProblems, Sm90EpiloguesOnAnH100Compile) {
  expectCompile(randomEpilogueCases(scheduler::Arch::Sm90, kRandomEpilogueCases, randomSeed(scheduler::Arch::Sm90)));
}

}  // namespace
}  // namespace tilegrid::testing
