// Problems drawn at random (tests/support/random_cases.cpp), plain and with fused epilogues, each on
// the schedule the heuristics pick for this GPU, checked against cuBLAS. The lists elsewhere pin tiles and traversals; this one meets the
// heuristics where no list looked. TILEGRID_RANDOM_SEED and TILEGRID_RANDOM_CASES draw other or more
// problems; a failure names its seed and problem, so `tilegrid run` can repeat it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

uint64_t envOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  if (!value) return fallback;
  char* end = nullptr;
  const uint64_t parsed = std::strtoull(value, &end, 10);
  if (*value < '0' || *value > '9' || *end != '\0') {
    throw std::invalid_argument(std::string(name) + ": expected a whole number, got '" + value + "'");
  }
  return parsed;
}

using Drawn = std::vector<GemmCase> (*)(scheduler::Arch, int, uint64_t);

void checkRandomProblems(scheduler::Arch arch, Drawn draw, int default_count) {
  const uint64_t seed = envOr("TILEGRID_RANDOM_SEED", randomSeed(arch));
  const uint64_t count = envOr("TILEGRID_RANDOM_CASES", static_cast<uint64_t>(default_count));
  if (count < 1 || count > 100000) throw std::invalid_argument("TILEGRID_RANDOM_CASES: expected 1 to 100000");
  expectAllCorrect(draw(arch, static_cast<int>(count), seed), runtime::Reference::Cublas,
                   "seed " + std::to_string(seed) + ": ");
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

}  // namespace
}  // namespace tilegrid::testing
