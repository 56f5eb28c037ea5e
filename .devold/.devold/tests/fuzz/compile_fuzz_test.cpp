// Bounded fuzzing of `tilegrid compile`: random problems and random combinations of the plan options,
// mostly well formed so that they reach NVRTC. Every command line must end in a compiled kernel
// (status 0) or a clear refusal (status 2); status 3 (NVRTC rejecting a kernel, an internal error)
// is a bug. Label nvrtc: it compiles with NVRTC but needs no GPU.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "support/cli_runner.h"
#include "support/fuzz_budget.h"

namespace tilegrid {
namespace {

TEST(CompileFuzz, EveryPlanCompilesOrIsRefused) {
  const testing::FuzzBudget budget("CompileFuzz", 30.0);
  std::mt19937_64 rng(budget.seed());
  const auto pick = [&](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  const auto chance = [&](int percent) { return std::uniform_int_distribution<int>(0, 99)(rng) < percent; };
  const auto extent = [&] {
    return pick({"1", "7", "64", "100", "257", "1000", "2048", "4000", "4097", "333",
                 std::to_string(std::uniform_int_distribution<int>(1, 5000)(rng))});
  };
  const auto factors = [&] {
    std::string list;
    for (int level = std::uniform_int_distribution<int>(1, 4)(rng); level > 0; --level) {
      list += (list.empty() ? "" : ",") + pick({"1", "2", "3", "4", "8", "16", "5"});
    }
    return list;
  };
  int64_t runs = 0;
  std::map<int, int64_t> statuses;
  while (budget.more()) {
    std::vector<std::string> args = {"compile", "--m", extent(), "--n", extent(), "--k", extent()};
    const auto option = [&](int percent, const std::string& name, const std::string& value) {
      if (chance(percent)) args.insert(args.end(), {name, value});
    };
    option(50, "--arch", pick({"sm_80", "sm_90"}));
    option(40, "--layout", pick({"TN", "NT", "NN", "TT"}));
    option(30, "--dtype", pick({"bf16", "fp16"}));
    option(30, "--out-dtype", pick({"bf16", "fp16", "fp32"}));
    option(20, "--batch", pick({"1", "2", "3", "16"}));
    option(15, "--lda", pick({"0", "4100", "5000", "8192"}));
    option(15, "--ldc", pick({"0", "4101", "5000"}));
    option(30, "--factor", factors());
    option(25, "--method", pick({"none", "split-merge", "swizzle-merge"}));
    option(25, "--group", pick({"m", "n"}));
    option(25, "--cta-tile", pick({"128,256,64", "128,128,64", "64,128,64", "192,160,64", "128,232,64", "256,152,64",
                                   "64,64,64", "128,128,32", "96,64,32"}));
    option(10, "--warp-tile", pick({"64,64", "32,32", "64,32", "128,152"}));
    option(15, "--stages", pick({"2", "3", "4", "6"}));
    option(20, "--cluster", pick({"1", "2", "4"}));
    option(15, "--persistent", pick({"on", "off"}));
    option(15, "--stream-k", pick({"on", "off"}));
    option(15, "--swap-ab", pick({"on", "off"}));
    option(10, "--pad-operands", pick({"on", "off"}));
    option(10, "--mma-order", pick({"rows", "columns"}));
    if (chance(10)) args.push_back("--specialize-shape");
    // Now and then, an option out of place.
    option(5, pick({"--m", "--factor", "--cta-tile", "--cluster"}), pick({"0", "-1", "abc", "9223372036854775807"}));
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    const auto r = testing::runCli(args);
    ++runs;
    ++statuses[r.status];
    ASSERT_TRUE(r.status == 0 || r.status == 2)
        << "seed " << budget.seed() << ": `tilegrid " << joined << "` exited " << r.status << ": " << r.err;
    if (r.status == 2) {
      ASSERT_EQ(r.err.rfind("tilegrid: error: ", 0), 0u) << joined << ": " << r.err;
    }
  }
  std::cout << runs << " command lines: " << statuses[0] << " compiled, " << statuses[2] << " refused\n";
  EXPECT_GT(runs, 5);
}

}  // namespace
}  // namespace tilegrid
