// The tile ranking's time model against the suite's runs on an H100: a kernel's modelled TFLOP/s is
// its tile's score times kFullWaveTflopsPerSm times the SM count (modelledSm90Us). For every run
// whose kernel is still the one the scheduler picks and whose tile the ranking chose, the model must
// be within kSpread of the measured time, and its median ratio within kBias of 1; batched problems
// (units a few K tiles long, mostly start-up) are outside what the model covers.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "measure/suite.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/scheduler/schedule.h"
#include "tilegrid/scheduler/sm90_tile_ranking.h"

namespace tilegrid::testing {
namespace {

struct Compared {
  std::string name;
  double modelled_over_measured = 0;
};

std::vector<Compared> compareRuns(const std::string& suite_file, const std::string& run_file) {
  const std::string root = std::string(TILEGRID_SOURCE_DIR) + "/";
  std::map<std::string, scheduler::MatmulProblem> problems;
  for (const runtime::SuiteCase& c : runtime::readSuite(root + suite_file)) {
    if (c.category != "batched") problems[c.name] = c.problem;
  }
  std::ifstream in(root + run_file);
  EXPECT_TRUE(in.good()) << run_file;
  const nlohmann::json run = nlohmann::json::parse(in);
  const auto h100 = scheduler::DeviceSpec::preset("sm_90");
  std::vector<Compared> compared;
  for (const nlohmann::json& c : run["cases"]) {
    const auto found = problems.find(c["name"].get<std::string>());
    if (found == problems.end() || !c.contains("ours")) continue;
    const scheduler::MatmulSchedule s = scheduler::schedule(found->second, h100);
    // Runs name their launch (the kernel with its traversal); runs without one, their kernel.
    if (codegen::launchName(s) != c.value("launch", c["kernel"].get<std::string>())) continue;
    const auto chosen = scheduler::chosenSm90Tile(s.kernelProblem(), h100, s.params.stream_k, s.params.swap_ab);
    if (!chosen || chosen->cta != s.params.cta_tile) continue;
    const double modelled_ms = scheduler::modelledSm90Us(s.kernelProblem(), h100, chosen->score()) / 1e3;
    compared.push_back({c["name"], modelled_ms / c["ours"]["median_ms"].get<double>()});
  }
  return compared;
}

TEST(TileModel, ModelledTimesMatchTheSuiteRuns) {
  constexpr double kSpread = 0.15, kBias = 0.03;
  std::vector<Compared> all = compareRuns("bench/suites/shapes.json", "docs/results/suite/h100.json");
  const std::vector<Compared> large = compareRuns("bench/suites/large.json", "docs/results/suite/large-h100.json");
  all.insert(all.end(), large.begin(), large.end());
  ASSERT_GE(all.size(), 30u) << "runs whose kernel the scheduler still picks by its ranking";
  for (const Compared& c : all) {
    EXPECT_NEAR(c.modelled_over_measured, 1.0, kSpread) << c.name << ": modelled time over measured";
  }
  std::vector<double> ratios;
  for (const Compared& c : all) ratios.push_back(c.modelled_over_measured);
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  EXPECT_NEAR(ratios[ratios.size() / 2], 1.0, kBias) << "the median of modelled over measured, " << all.size() << " runs";
}

}  // namespace
}  // namespace tilegrid::testing
