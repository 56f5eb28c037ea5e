// Bounded fuzzing of the command-line parser and the layout parser. The CLI must answer every
// argument vector with status 0, 1 or 2 and, for 2, a message; never a crash, an abort, a hang or
// an internal error (status 3). The layout parser must return a layout within its documented
// bounds or throw UserError. compile, run and sweep are left out here: they share the plan options
// (fuzzed through plan, emit and kernels) and spend their time in NVRTC; compile has its own fuzzer in
// the nvrtc label (compile_fuzz_test.cpp).
#include <gtest/gtest.h>

#include <random>

#include "tilegrid/ir/error.h"
#include "tilegrid/scheduler/bank_model.h"
#include "tilegrid/scheduler/problem.h"
#include "support/cli_runner.h"
#include "support/fuzz_budget.h"

namespace tilegrid {
namespace {

const std::vector<std::string> kCommands = {"grid", "plan", "emit", "banks", "kernels", "frobnicate", "--version", ""};
// Every command's options, offered to every command: a command must refuse another's option clearly.
const std::vector<std::string> kOptions = {
    "--m",        "--n",          "--k",           "--batch",      "--dtype",     "--out-dtype", "--layout",
    "--arch",     "--factor",     "--method",      "--group",      "--cta-tile",  "--warp-tile", "--stages",
    "--cluster",  "--tiles",      "--format",      "--wave",       "--show-index", "--elem-bytes", "--threads",
    "--vec",      "--swizzle",    "--no-tuned",    "-o",           "--bogus",     "--lda",       "--ldb",
    "--ldc",      "--stride-a",   "--stride-b",    "--stride-c",   "--persistent", "--stream-k", "--swap-ab",
    "--pad-operands", "--mma-order", "--specialize-shape", "--tuned", "--iters", "--compile", "--lineinfo"};
const std::vector<std::string> kValues = {
    "0",    "1",     "7",        "64",        "129",  "4000",  "-1",   "2147483648", "9223372036854775807",
    "99999999999999999999",     "",          "abc",  "1e3",   "0x10", "4,2",        "4,,2",  ",",  "8,0",
    "3,4,3", "128,256,64",      "64,64",     "bf16", "fp16",  "fp32", "fp8",        "TN",    "NT", "XY",
    "sm_80", "sm_90", "sm_75",  "none",      "split-merge", "swizzle-merge", "m", "n", "k", "svg", "json",
    "csv",  "table", "(32,64):(64,1)", "(8,8):(1,8)", "(0,4):(1,1)", "(4,4):(-1,1)", "((((", "5,3", "1000,1000",
    "on",   "off",   "rows",  "columns", "1:4", "1:64:7", "4096:1", "1:2147483647", "3,3,3,2", "8,2,2", "2,4", "text",
    std::string(5000, '9'), "\x1b[2J", "4100", "0,0,0"};

TEST(CliFuzz, EveryArgumentVectorGetsAnAnswerNotACrash) {
  const testing::FuzzBudget budget("CliFuzz", 4.0);
  std::mt19937_64 rng(budget.seed());
  auto pick = [&](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  int64_t runs = 0;
  std::map<int, int64_t> statuses;
  while (budget.more()) {
    std::vector<std::string> args;
    if (const std::string c = pick(kCommands); !c.empty()) args.push_back(c);
    // Mostly well-formed problems, so that the run reaches scheduling and codegen.
    if (std::uniform_int_distribution<int>(0, 3)(rng) != 0) {
      for (const char* o : {"--m", "--n", "--k"}) {
        args.push_back(o);
        args.push_back(pick({"1", "17", "64", "200", "4000", "4097", pick(kValues)}));
      }
    }
    // Few options most of the time, so that many lines get past parsing into scheduling and codegen.
    const int max_options = std::uniform_int_distribution<int>(0, 1)(rng) ? 2 : 5;
    for (int i = std::uniform_int_distribution<int>(0, max_options)(rng); i > 0; --i) {
      args.push_back(pick(kOptions));
      if (std::uniform_int_distribution<int>(0, 5)(rng) != 0) args.push_back(pick(kValues));
    }
    // Never write files the fuzzer names.
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "-o") args[i + 1] = "/dev/null";
    }
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    const auto r = testing::runCli(args);
    ++runs;
    ++statuses[r.status];
    ASSERT_TRUE(r.status == 0 || r.status == 2) << "seed " << budget.seed() << ": `tilegrid " << joined
                                                << "` exited " << r.status << ": " << r.err;
    if (r.status == 2) {
      ASSERT_EQ(r.err.rfind("tilegrid: error: ", 0), 0u) << joined << ": " << r.err;
      ASSERT_GT(r.err.size(), 20u) << joined;
    }
  }
  std::cout << runs << " command lines: " << statuses[0] << " ran, " << statuses[2] << " refused\n";
  EXPECT_GT(runs, 100);
  EXPECT_GT(statuses[0], 0);
  EXPECT_GT(statuses[2], 0);
}

TEST(LayoutParserFuzz, ParsesWithinBoundsOrRefuses) {
  const testing::FuzzBudget budget("LayoutParserFuzz", 2.0);
  std::mt19937_64 rng(budget.seed());
  const std::string alphabet = "():,-0123456789 x+";
  const std::vector<std::string> seeds = {"(32,64):(64,1)", "(8,8):(1,8)", "(1048576,1):(16777216,0)", "(2,2):(0,0)"};
  int64_t parsed = 0, refused = 0;
  while (budget.more()) {
    std::string text = seeds[std::uniform_int_distribution<size_t>(0, seeds.size() - 1)(rng)];
    for (int edits = std::uniform_int_distribution<int>(0, 4)(rng); edits > 0; --edits) {
      const size_t at = std::uniform_int_distribution<size_t>(0, text.size())(rng);
      const char c = alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(rng)];
      switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
        case 0: text.insert(at, 1, c); break;
        case 1: if (at < text.size()) text.erase(at, 1); break;
        default: if (at < text.size()) text[at] = c;
      }
    }
    try {
      const scheduler::Layout2D l = scheduler::Layout2D::parse(text);
      ++parsed;
      ASSERT_TRUE(l.rows >= 1 && l.cols >= 1 && l.rows <= (1 << 20) && l.cols <= (1 << 20)) << text;
      ASSERT_TRUE(l.row_stride >= 0 && l.col_stride >= 0 && l.row_stride <= (1 << 24) && l.col_stride <= (1 << 24))
          << text;
      ASSERT_EQ(scheduler::Layout2D::parse(l.toString()).toString(), l.toString()) << text;
    } catch (const UserError& e) {
      ++refused;
      ASSERT_NE(std::string(e.what()).find("layout '"), std::string::npos) << text << ": " << e.what();
    }
    // The problem-layout and dtype parsers take the same text without crashing.
    try {
      scheduler::parseLayout(text);
    } catch (const UserError&) {
    }
  }
  std::cout << parsed << " layouts parsed, " << refused << " refused\n";
  EXPECT_GT(parsed, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace tilegrid
