// The benchmark suite and its report: the checked-in suite parses and covers what it promises, bad
// suites are refused naming the case, and the tables in README.md and docs/benchmarks.md are what
// rendering the checked-in runs gives (so the figures there cannot drift from the data).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "measure/suite.h"
#include "measure/suite_run.h"
#include "tilegrid/ir/error.h"

namespace tilegrid::testing {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(std::string(TILEGRID_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json merged(const std::vector<std::string>& paths) {
  nlohmann::json all;
  for (const std::string& p : paths) {
    nlohmann::json run = nlohmann::json::parse(readFile(p));
    if (all.is_null()) {
      all = std::move(run);
    } else if (all["cases"].is_array()) {
      for (auto& c : run["cases"]) all["cases"].push_back(c);
    } else {
      all["cases"].update(run["cases"]);  // torch.compile's: an object by case name
    }
  }
  return all;
}

// The text between "<!-- NAME: begin -->\n" and "<!-- NAME: end -->".
std::string block(const std::string& text, const std::string& name) {
  const std::string begin = "<!-- " + name + ": begin -->\n", end = "<!-- " + name + ": end -->";
  const size_t b = text.find(begin), e = text.find(end);
  EXPECT_NE(b, std::string::npos) << name;
  EXPECT_NE(e, std::string::npos) << name;
  if (b == std::string::npos || e == std::string::npos) return "";
  return text.substr(b + begin.size(), e - b - begin.size());
}

TEST(BenchSuite, TheShapeSuiteCoversEveryCategoryInBothLayouts) {
  const std::vector<runtime::SuiteCase> cases = runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/shapes.json");
  std::set<std::string> problems, categories, layouts;
  for (const auto& c : cases) {
    const scheduler::MatmulProblem& p = c.problem;
    problems.insert(std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + "b" +
                    std::to_string(p.batch) + scheduler::toString(p.a_dtype) + scheduler::toString(p.out_dtype) +
                    std::to_string(p.lda));
    categories.insert(c.category);
    layouts.insert(scheduler::toString(p.layout));
  }
  EXPECT_GE(problems.size(), 48u);
  EXPECT_EQ(categories, (std::set<std::string>{"decode", "prefill", "square", "non-divisible", "misaligned", "tiny-mn",
                                               "tall-skinny", "batched"}));
  EXPECT_TRUE(layouts.count("TN") && layouts.count("NT"));
}

TEST(BenchSuite, BadSuitesAreRefusedNamingTheCase) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> bad = {
      {R"({"cases": [{"name": "a", "m": 1, "n": 1, "k": 1, "kk": 2}]})", {"'a'", "unknown field 'kk'"}},
      {R"({"cases": [{"name": "a", "m": 1, "n": 1}]})", {"'a'", "m, n and k"}},
      {R"({"cases": [{"name": "a", "m": 1, "n": 1, "k": 1}, {"name": "a", "m": 2, "n": 2, "k": 2}]})", {"'a'", "twice"}},
      {R"({"cases": [{"name": "a", "m": 1.5, "n": 1, "k": 1}]})", {"'a'", "whole number"}},
      {R"({"cases": [{"name": "a", "m": 0, "n": 1, "k": 1}]})", {"'a'", "M=0"}},
      {R"({"cases": [{"name": "a", "m": 1, "n": 1, "k": 1, "layouts": ["XY"]}]})", {"XY"}},
      {R"({"cases": []})", {"no cases"}},
      {R"([1, 2])", {"\"cases\""}},
      {"{", {"not JSON"}},
      {R"({"cases": [{"name": "a", "m": 1, "n": 1, "k": 1, "schedules": [{"tile": [1, 2, 3]}]}]})",
       {"'a'", "unknown schedule field 'tile'"}},
      {R"({"cases": [{"name": "a", "m": 1, "n": 1, "k": 1, "schedules": [{"cta_tile": [64, 64]}]}]})",
       {"'a'", "cta_tile is [M, N, K]"}},
      {R"({"cases": [{"name": "a", "m": 1, "n": 1, "k": 1, "schedules": [{"cluster": 1}, {"cluster": 1}]}]})",
       {"a/TN --cluster 1", "twice"}},
  };
  for (const auto& [text, needles] : bad) {
    try {
      runtime::parseSuite(text);
      ADD_FAILURE() << text << ": accepted";
    } catch (const UserError& e) {
      for (const std::string& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
    }
  }
}

TEST(BenchSuite, SchedulesRunBesideTheDefaultAndRenderAsADataset) {
  const auto cases = runtime::parseSuite(R"({"cases": [{"name": "a", "m": 1, "n": 4096, "k": 4096, "layouts": ["TN"],
      "schedules": [{"swap_ab": true, "cta_tile": [64, 8, 128], "cluster": 1, "stages": 10},
                    {"fixed_choices": false}]}]})");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].name, "a/TN");
  EXPECT_EQ(cases[0].config, "default");
  EXPECT_FALSE(cases[0].overrides.cta_tile.has_value());
  // The tile datasets' config column names the choices as `tilegrid run` options, in this order.
  EXPECT_EQ(cases[1].config, "--swap-ab on --cta-tile 64x8x128 --cluster 1 --stages 10");
  EXPECT_EQ(cases[1].name, "a/TN " + cases[1].config);
  ASSERT_TRUE(cases[1].overrides.cta_tile && cases[1].overrides.stages && cases[1].overrides.swap_ab);
  EXPECT_EQ(cases[1].overrides.cta_tile->n, 8);
  EXPECT_EQ(*cases[1].overrides.stages, 10);
  EXPECT_EQ(cases[2].config, "--fixed-choices off");
  ASSERT_TRUE(cases[2].overrides.launch_choices_compiled.has_value());
  EXPECT_FALSE(*cases[2].overrides.launch_choices_compiled);
  const nlohmann::json run = nlohmann::json::parse(R"({"cases": [
      {"name": "a/TN", "m": 1, "n": 4096, "k": 4096, "batch": 1, "layout": "TN", "config": "default",
       "launch": "k1", "ours": {"median_ms": 0.0216}, "cublas": {"median_ms": 0.02222}},
      {"name": "a/TN x", "error": "too much shared memory"}]})");
  EXPECT_EQ(runtime::renderSuiteDataset(run),
            "m,n,k,batch,layout,config,kernel,ours_us,cublas_us\n1,4096,4096,1,TN,default,k1,21.6,22.2\n");
  // The datasets' suites list their problems under the configurations the rules chose among.
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/tile_narrow.json").size(), 140u);
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/tile_small.json").size(), 160u);
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/tile_narrow_rows.json").size(), 228u);
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/tile_cut_pieces.json").size(), 130u);
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/tile_misaligned.json").size(), 48u);
  // The consumer datasets' suite: ping-pong with five stages of 64-column slabs does not fit beside
  // the slab buffers of an aux output or a matrix c, so those problems list one ping-pong kernel.
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/consumers.json").size(), 162u);
  // Every fused epilogue kind cuBLASLt has, and the plain GEMM, on five shapes: the scheduler's choice.
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/epilogues.json").size(), 30u);
}

TEST(BenchSuite, TheTablesInTheDocsAreTheCheckedInRunsRendered) {
  // A block of a document, the runs it renders, torch.compile's runs beside them (none: empty), and
  // whether it is the summary alone.
  struct Rendered {
    const char* doc;
    const char* block;
    const char* run;
    const char* torch;
    bool summary_only;
  };
  const std::vector<Rendered> blocks = {
      // The suite and torch.compile, run one after the other on one GPU.
      {"docs/benchmarks.md", "bench-table", "docs/results/suite/h100.json", "docs/results/suite/h100-torch.json", false},

      // The misaligned category again, after its copies were overlapped, torch.compile in the same run.
      {"docs/benchmarks.md", "bench-misaligned", "docs/results/suite/misaligned-h100.json",
       "docs/results/suite/misaligned-h100-torch.json", false},
      // Two of them with the tiles ranked on their padded copies, on an H200.
      {"docs/benchmarks.md", "bench-misaligned-ranked", "docs/results/suite/misaligned-ranked-h200.json",
       "docs/results/suite/misaligned-ranked-h200-torch.json", false},
      // The whole suite on an H200, its summary, in the guide and in the README.
      {"docs/benchmarks.md", "bench-summary-h200", "docs/results/suite/h200.json", "", true},
      {"README.md", "bench-summary", "docs/results/suite/h200.json", "", true},
      // Decode on an H200 with blocked dot kernels, and torch.compile timed in turns with tilegrid.matmul.
      {"docs/benchmarks.md", "bench-decode-h200", "docs/results/suite/decode-h200.json",
       "docs/results/suite/torch-turns-h200.json", false},
      // Decode, tiny M·N and tall-skinny with operands read once evict-first, torch.compile in turns.
      {"docs/benchmarks.md", "bench-evict-first-h200", "docs/results/suite/evict-first-h200.json",
       "docs/results/suite/torch-turns-evict-first-h200.json", false},
      {"README.md", "bench-large-sm90", "docs/results/suite/large-h100.json", "", false},
      {"README.md", "bench-large-sm80", "docs/results/suite/large-sm80-h100.json", "", false},
  };
  for (const Rendered& r : blocks) {
    const nlohmann::json torch = *r.torch ? merged({r.torch}) : nlohmann::json{};
    EXPECT_EQ(block(readFile(r.doc), r.block), runtime::renderSuiteResults(merged({r.run}), torch, true, r.summary_only))
        << r.doc << ", block " << r.block;
  }
  EXPECT_EQ(runtime::readSuite(std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/large.json").size(), 14u);
}

// The report of a made-up run: ratios are time ratios (above 1 where ours is faster), the summary's
// minimum names its case, and a case that could not run says why.
TEST(BenchSuite, TheReportGivesTimeRatiosAndNamesTheSlowestCase) {
  const nlohmann::json run = nlohmann::json::parse(R"({
    "device": {"gpu": "Test GPU", "sm_count": "4", "driver_cuda_version": "13.0", "nvrtc": "13.0"}, "date": "today",
    "cases": [
      {"name": "fast/TN", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.0}, "cublas": {"median_ms": 2.0},
       "cublaslt": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}, "cublaslt": {"passed": true}}},
      {"name": "slow/TN", "category": "c", "flop": 2e9, "ours": {"median_ms": 4.0}, "cublas": {"median_ms": 2.0},
       "cublaslt": {"median_ms": 4.0}, "checks": {"ours": {"passed": false}, "cublaslt": {"passed": true}}},
      {"name": "broken/TN", "category": "d", "error": "too large"}]})");
  const std::string text = runtime::renderSuiteResults(run, {}, false);
  EXPECT_NE(text.find("2.000"), std::string::npos) << text;
  EXPECT_NE(text.find("0.500"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL"), std::string::npos) << text;
  EXPECT_NE(text.find("error: too large"), std::string::npos) << text;
  // Geometric mean of 2 and 0.5 is 1; the minimum is slow/TN's.
  EXPECT_NE(text.find("1.000 (min 0.500 slow/TN)"), std::string::npos) << text;
}

// torch.compile's times from bench/torch_baseline.py: where that process timed tilegrid.matmul in
// the same turns, the ratio is to that time, not to the suite's (a run minutes apart); the
// torch.compile column still shows its own time.
TEST(BenchSuite, TorchCompileIsSetAgainstOursFromItsOwnTurns) {
  const nlohmann::json run = nlohmann::json::parse(R"({
    "device": {"gpu": "Test GPU", "sm_count": "4", "driver_cuda_version": "13.0", "nvrtc": "13.0"}, "date": "today",
    "cases": [
      {"name": "a/TN", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.0}, "cublas": {"median_ms": 1.0},
       "cublaslt": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}, "cublaslt": {"passed": true}}},
      {"name": "b/TN", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.0}, "cublas": {"median_ms": 1.0},
       "cublaslt": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}, "cublaslt": {"passed": true}}}]})");
  const nlohmann::json beside = nlohmann::json::parse(R"({"cases": {
      "a/TN": {"median_ms": 0.9, "tilegrid_ms": 0.75},
      "b/TN": {"median_ms": 1.2, "tilegrid_ms": 1.5}}})");
  const std::string text = runtime::renderSuiteResults(run, beside, false);
  EXPECT_NE(text.find("1.200"), std::string::npos) << text;  // 0.9 / 0.75
  EXPECT_NE(text.find("0.800"), std::string::npos) << text;  // 1.2 / 1.5
  EXPECT_NE(text.find("2.2  "), std::string::npos) << text;  // torch.compile's own TFLOP/s at 0.9 ms
  EXPECT_NE(text.find("0.980 (min 0.800 b/TN)"), std::string::npos) << text;
  EXPECT_NE(text.find("same turns"), std::string::npos) << text;
  // Times from a process that did not time ours are set against the suite's.
  const nlohmann::json apart = nlohmann::json::parse(R"({"cases": {"a/TN": {"median_ms": 0.9}, "b/TN": {"median_ms": 1.2}}})");
  const std::string apart_text = runtime::renderSuiteResults(run, apart, false);
  EXPECT_NE(apart_text.find("1.039 (min 0.900 a/TN)"), std::string::npos) << apart_text;
  EXPECT_EQ(apart_text.find("same turns"), std::string::npos) << apart_text;
}

// A run with --versus-specialized: the column and summary of ours with the shape compiled in over
// ours (above 1 where reading the shape at launch is faster), and a failed check of it fails the case.
TEST(BenchSuite, TheShapeCompiledInGetsItsColumnWhereTimed) {
  const nlohmann::json run = nlohmann::json::parse(R"({
    "device": {"gpu": "Test GPU", "sm_count": "4", "driver_cuda_version": "13.0", "nvrtc": "13.0"}, "date": "today",
    "cases": [
      {"name": "a/TN", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.0}, "cublas": {"median_ms": 1.0},
       "cublaslt": {"median_ms": 1.0}, "specialized": {"median_ms": 0.8},
       "checks": {"ours": {"passed": true}, "cublaslt": {"passed": true}, "specialized": {"passed": false}}},
      {"name": "b/TN", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.0}, "cublas": {"median_ms": 1.0},
       "cublaslt": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}, "cublaslt": {"passed": true}}}]})");
  const std::string text = runtime::renderSuiteResults(run, {}, false);
  EXPECT_NE(text.find("/compiled-in"), std::string::npos) << text;
  EXPECT_NE(text.find("vs the shape compiled in"), std::string::npos) << text;
  EXPECT_NE(text.find("0.800 (min 0.800 a/TN)"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL"), std::string::npos) << text;
  // A run without the contender keeps its table as it was.
  nlohmann::json plain = run;
  plain["cases"][0].erase("specialized");
  plain["cases"][0]["checks"].erase("specialized");
  const std::string plain_text = runtime::renderSuiteResults(plain, {}, false);
  EXPECT_EQ(plain_text.find("compiled-in"), std::string::npos) << plain_text;
  EXPECT_EQ(plain_text.find("FAIL"), std::string::npos) << plain_text;
}

// A suite that times problems under other schedules too: the report says how far the scheduler's
// schedule ("default") is from the fastest measured, and names the farthest and what beat it.
TEST(BenchSuite, TheReportComparesTheSchedulersChoiceWithTheFastestSchedule) {
  nlohmann::json run = nlohmann::json::parse(R"({
    "device": {"gpu": "Test GPU", "sm_count": "4", "driver_cuda_version": "13.0", "nvrtc": "13.0"}, "date": "today",
    "cases": [
      {"name": "near/TN", "config": "default", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.02},
       "cublas": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}}},
      {"name": "near/TN --pingpong on", "config": "--pingpong on", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.0},
       "cublas": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}}},
      {"name": "far/TN", "config": "default", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.1},
       "cublas": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}}},
      {"name": "far/TN --cta-tile 128x128x64", "config": "--cta-tile 128x128x64", "category": "c", "flop": 2e9, "ours": {"median_ms": 1.0},
       "cublas": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}}},
      {"name": "alone/TN", "config": "default", "category": "c", "flop": 2e9, "ours": {"median_ms": 5.0},
       "cublas": {"median_ms": 1.0}, "checks": {"ours": {"passed": true}}}]})");
  const std::string text = runtime::renderSuiteResults(run, {}, false, true);
  EXPECT_NE(text.find("over the 2 problems timed under other schedules too: within 3% on 1 (50%)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("at most 1.100 (far/TN, against --cta-tile 128x128x64)"), std::string::npos) << text;
  // sqrt(1.02 * 1.1)
  EXPECT_NE(text.find("1.059 (geometric mean)"), std::string::npos) << text;
  // A run with the scheduler's schedules alone has no such line.
  run["cases"].erase(3);
  run["cases"].erase(1);
  EXPECT_EQ(runtime::renderSuiteResults(run, {}, false, true).find("fastest measured"), std::string::npos);
}

}  // namespace
}  // namespace tilegrid::testing
