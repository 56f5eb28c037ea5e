// Problems drawn at random (tests/support/random_cases.cpp), plain and with fused epilogues, each on
// the schedule the heuristics pick for this GPU, checked against cuBLAS. The lists elsewhere pin
// tiles and traversals; this one meets the heuristics where no list looked. TILEGRID_RANDOM_SEED and TILEGRID_RANDOM_CASES draw other or more
// problems; a failure names its seed and problem, so `tilegrid run` can repeat it.
#include <gtest/gtest.h>

#include <string>

#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

using Drawn = std::vector<GemmCase> (*)(scheduler::Arch, int, uint64_t);

void checkRandomProblems(scheduler::Arch arch, Drawn draw, int default_count) {
  const RandomDraw d = randomDrawFromEnvironment(arch, default_count);
  expectAllCorrect(draw(arch, d.count, d.seed), runtime::Reference::Cublas, "seed " + std::to_string(d.seed) + ": ");
}

TEST(RandomProblems, Sm80DefaultSchedulesMatchCublas) {
  checkRandomProblems(scheduler::Arch::Sm80, randomDefaultCases, kRandomCases);
}
TEST(RandomProblems, Sm90DefaultSchedulesMatchCublas) {
  checkRandomProblems(scheduler::Arch::Sm90, randomDefaultCases, kRandomCases);
}
// Fused epilogues: cuBLAS's product with the epilogue applied on the host (8-bit inputs: of exact
// bf16 copies, scales applied on the host).
TEST(RandomProblems, Sm80EpiloguesMatchCublas) {
  checkRandomProblems(scheduler::Arch::Sm80, randomEpilogueCases, kRandomEpilogueCases);
}
TEST(RandomProblems, Sm90EpiloguesMatchCublas) {
  checkRandomProblems(scheduler::Arch::Sm90, randomEpilogueCases, kRandomEpilogueCases);
}
// Dot kernels: problems of at most 8x8 outputs over K up to 300000, some with epilogues.
TEST(RandomProblems, DotKernelsMatchCublas) {
  checkRandomProblems(scheduler::Arch::Sm90, randomDotCases, kRandomDotCases);
}

}  // namespace
}  // namespace tilegrid::testing
