// The rule that compiles the launch choices (traversal factor, cluster size, C's orientation and
// stores) into sm_90 kernels of problems whose M and N are at most 2048 (chooseFixedChoices), held
// against its dataset, docs/results/fixed_choices_h200.csv (`tilegrid bench --suite
// bench/suites/fixed_choices.json --seconds 0 --turns 300 --format dataset`): each problem run with
// the choices compiled in and read at launch, cuBLAS timed in the same turns. The configurations of
// a case run one after the other, so each is judged by its time over cuBLAS's in its own turns.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::scheduler {
namespace {

struct Runs {
  MatmulProblem problem;
  std::map<std::string, double> over_cublas;  // by config: ours over cuBLAS
  std::map<std::string, std::string> kernel;  // by config
};

std::map<std::string, Runs> readDataset() {
  const std::string path = std::string(TILEGRID_SOURCE_DIR) + "/docs/results/fixed_choices_h200.csv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "m,n,k,batch,layout,config,kernel,ours_us,cublas_us") << path;
  std::map<std::string, Runs> problems;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) c.push_back(cell);
    if (c.size() != 9) {
      ADD_FAILURE() << path << ": malformed row '" << line << "'";
      continue;
    }
    Runs& r = problems[c[0] + "x" + c[1] + "x" + c[2] + " " + c[4]];
    r.problem.m = std::stoll(c[0]), r.problem.n = std::stoll(c[1]), r.problem.k = std::stoll(c[2]);
    r.problem.batch = std::stoll(c[3]);
    r.problem.layout = parseLayout(c[4]);
    r.over_cublas[c[5]] = std::stod(c[7]) / std::stod(c[8]);
    r.kernel[c[5]] = c[6];
  }
  return problems;
}

constexpr const char* kCompiledIn = "--fixed-choices on";
constexpr const char* kReadAtLaunch = "--fixed-choices off";

// Every problem of the dataset has M and N of at most 2048, so the rule compiles the choices in on
// all of them: that must be within 3% of reading them at launch on every problem (the spread of
// two runs of one kernel in one process is about 1.4% in the median), and faster on at least four
// problems in five. The saving is a fixed time a launch, so the short kernels gain most.
TEST(FixedChoices, CompiledInForSmallProblemsIsNeverSlowerThanTheSpreadAndUsuallyFaster) {
  constexpr double kMargin = 1.03, kFasterShare = 0.8;
  const DeviceSpec device = DeviceSpec::preset("sm_90");
  const std::map<std::string, Runs> dataset = readDataset();
  ASSERT_GE(dataset.size(), 30u);
  int faster = 0;
  for (const auto& [name, runs] : dataset) {
    MatmulProblem p = runs.problem;
    p.validate();
    ASSERT_TRUE(runs.over_cublas.count(kCompiledIn) && runs.over_cublas.count(kReadAtLaunch)) << name;
    EXPECT_NE(runs.kernel.at(kCompiledIn).find("_fixed"), std::string::npos) << name;
    EXPECT_EQ(runs.kernel.at(kReadAtLaunch).find("_fixed"), std::string::npos) << name;
    const bool compiled_in = schedule(p, device).params.launch_choices_compiled;
    EXPECT_TRUE(compiled_in) << name << ": M and N are at most 2048";
    const double chosen = runs.over_cublas.at(compiled_in ? kCompiledIn : kReadAtLaunch);
    const double other = runs.over_cublas.at(compiled_in ? kReadAtLaunch : kCompiledIn);
    EXPECT_LE(chosen, other * kMargin) << name << ": the rule's choice runs " << chosen / other << "x the other";
    faster += chosen < other;
  }
  EXPECT_GE(faster, kFasterShare * static_cast<double>(dataset.size()))
      << faster << " of " << dataset.size() << " problems run faster with the choices compiled in";
}

}  // namespace
}  // namespace tilegrid::scheduler
