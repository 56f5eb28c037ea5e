// The random problems the GPU suite runs (gpu/random_shapes_gpu_test.cpp), plain and with fused
// epilogues, scheduled for the H100 preset: each default schedule must emit and compile without
// spills or ptxas warnings, on a machine with no GPU.
#include <gtest/gtest.h>

#include <string>

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

// The GPU suite's draws, or others: TILEGRID_RANDOM_SEED and TILEGRID_RANDOM_CASES as there.
void expectCompile(scheduler::Arch arch, std::vector<GemmCase> (*draw)(scheduler::Arch, int, uint64_t), int count) {
  const RandomDraw d = randomDrawFromEnvironment(arch, count);
  SCOPED_TRACE("seed " + std::to_string(d.seed));
  expectCompile(draw(arch, d.count, d.seed));
}

TEST(RandomProblems, Sm80DefaultSchedulesOnAnH100Compile) {
  expectCompile(scheduler::Arch::Sm80, randomDefaultCases, kRandomCases);
}
TEST(RandomProblems, Sm90DefaultSchedulesOnAnH100Compile) {
  expectCompile(scheduler::Arch::Sm90, randomDefaultCases, kRandomCases);
}
TEST(RandomProblems, Sm80EpiloguesOnAnH100Compile) {
  expectCompile(scheduler::Arch::Sm80, randomEpilogueCases, kRandomEpilogueCases);
}
TEST(RandomProblems, Sm90EpiloguesOnAnH100Compile) {
  expectCompile(scheduler::Arch::Sm90, randomEpilogueCases, kRandomEpilogueCases);
}
TEST(RandomProblems, DotKernelsOnAnH100Compile) {
  expectCompile(scheduler::Arch::Sm90, randomDotCases, kRandomDotCases);
}

}  // namespace
}  // namespace tilegrid::testing
