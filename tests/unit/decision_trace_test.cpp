// The decision trace says which rule chose each parameter: the schedule records it, plan prints it as
// text and JSON, and overrides and given params say so.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::scheduler {
namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k, int64_t batch = 1, Layout layout = Layout::TN) {
  MatmulProblem p;
  p.m = m, p.n = n, p.k = k, p.batch = batch, p.layout = layout;
  return p;
}

// The last rule recorded for `what` (a later decision on a parameter replaces an earlier one).
std::string ruleFor(const MatmulSchedule& s, const std::string& what) {
  std::string rule;
  for (const Decision& d : s.decisions) {
    if (d.what == what) rule = d.rule;
  }
  return rule;
}

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

TEST(DecisionTrace, NamesTheRuleThatChoseEachTile) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  struct Case {
    MatmulProblem problem;
    const char* rule;
  };
  for (const Case& c : {Case{problem(1, 4096, 4096), "narrowSideSm90"}, Case{problem(4096, 4096, 4096), "rankSm90Tiles"},
                        Case{problem(640, 2560, 8192), "fitOneWaveSm90"},
                        Case{problem(128, 128, 64, 32, Layout::NT), "shortOrOneTileSm90"},
                        Case{problem(128, 128, 64, 32), "chooseTilesSm80"},
                        Case{problem(128, 128, 65536), "shortOrOneTileSm90"}}) {
    const MatmulSchedule s = schedule(c.problem, h100);
    EXPECT_TRUE(startsWith(ruleFor(s, "tile"), c.rule)) << c.problem.toString() << ": " << ruleFor(s, "tile");
    // Every parameter chooseParams sets is in the trace, once or more.
    for (const char* what : {"arch", "persistent", "orientation", "tile", "cluster", "stream-k", "padded copies",
                             "stages", "grid traversal"}) {
      EXPECT_FALSE(ruleFor(s, what).empty()) << c.problem.toString() << ": no decision on " << what;
    }
  }
}

// Where a model decided, the trace lists what it weighed, the chosen option among them and best by the
// model's own figure.
TEST(DecisionTrace, ModelsListTheCandidatesTheyWeighed) {
  const MatmulSchedule s = schedule(problem(4096, 4096, 4096), DeviceSpec::preset("sm_90"));
  for (const Decision& d : s.decisions) {
    if (d.what == "tile") {
      ASSERT_GE(d.candidates.size(), 2u);
      double best = 0;
      for (const Candidate& c : d.candidates) {
        if (c.option.find("not eligible") == std::string::npos) best = std::max(best, c.modelled);
      }
      EXPECT_EQ(d.candidates.front().measure, "score");
      EXPECT_NE(d.rule.find(fmt::format("{:.3f}", best)), std::string::npos) << d.rule;
    }
    if (d.what == "grid traversal") {
      ASSERT_GE(d.candidates.size(), 2u);
      double least = d.candidates.front().modelled;
      bool chosen_listed = false;
      for (const Candidate& c : d.candidates) {
        least = std::min(least, c.modelled);
        chosen_listed = chosen_listed || c.option == d.choice;
      }
      EXPECT_TRUE(chosen_listed) << d.choice;
      EXPECT_NE(d.rule.find(fmt::format("{:.1f} MB", least / 1e6)), std::string::npos) << d.rule;
    }
  }
}

TEST(DecisionTrace, OverridesAndGivenParamsSaySo) {
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  const MatmulSchedule s = schedule(problem(4096, 4096, 4096), h100,
                                    {.cta_tile = TileShape{128, 128, 64}, .stages = 3, .cluster_m = 1});
  EXPECT_EQ(ruleFor(s, "tile"), "override");
  EXPECT_EQ(ruleFor(s, "stages"), "override");
  EXPECT_EQ(ruleFor(s, "cluster"), "override");
  const MatmulSchedule given = scheduleWith(problem(4096, 4096, 4096), h100, s.params);
  ASSERT_EQ(given.decisions.size(), 1u);
  EXPECT_TRUE(startsWith(given.decisions[0].rule, "scheduleWith")) << given.decisions[0].rule;
}

TEST(DecisionTrace, PlanPrintsItAsTextAndJson) {
  const auto text = testing::runCli({"plan", "--m", "1", "--n", "4096", "--k", "4096", "--arch", "sm_90"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("decisions:\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("narrowSideSm90: M is 1, at most half a wgmma's 64 rows"), std::string::npos) << text.out;
  const auto json = testing::runCli({"plan", "--m", "1", "--n", "4096", "--k", "4096", "--arch", "sm_90", "--format", "json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_TRUE(j["decisions"].is_array());
  bool tile = false;
  for (const auto& d : j["decisions"]) {
    if (d["what"] == "tile") tile = d["choice"] == "64x8x256" && startsWith(d["rule"], "narrowSideSm90");
  }
  EXPECT_TRUE(tile) << j["decisions"].dump(2);
}

}  // namespace
}  // namespace tilegrid::scheduler
