// The sweep's candidate list, the tuning store and the sweep plot (from a made-up timed report).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/sweep_plot.h"
#include "tilegrid/ir/error.h"
#include "measure/grid_sweep.h"
#include "tilegrid/runtime/tuning_store.h"
#include "support/cli_runner.h"

namespace tilegrid::runtime {
namespace {

using scheduler::GridGroup;
using scheduler::GridMethod;
using scheduler::GridTraversal;

SweepRequest request4000() {
  SweepRequest r;
  r.problem.m = r.problem.n = r.problem.k = 4000;
  r.problem.validate();
  r.device = scheduler::DeviceSpec::preset("sm_90");
  return r;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(SweepCandidates, EveryMethodFactorAndGroupOnceWithTheHeuristic) {
  std::vector<std::string> skipped;
  const auto candidates = sweepCandidates(request4000(), &skipped);
  // none x {m, n} + split-merge x 6 single factors x 2 + swizzle-merge x 7 lists x 2.
  EXPECT_EQ(candidates.size(), 2u + 12u + 14u);
  ASSERT_EQ(skipped.size(), 2u);  // split-merge cannot take the list 8,2
  EXPECT_NE(skipped[0].find("exactly one factor"), std::string::npos) << skipped[0];
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (size_t j = i + 1; j < candidates.size(); ++j) EXPECT_FALSE(candidates[i] == candidates[j]) << i << " " << j;
  }
  const GridTraversal none_n{GridMethod::None, {1}, GridGroup::N};
  EXPECT_NE(std::find(candidates.begin(), candidates.end(), none_n), candidates.end());
}

TEST(SweepCandidates, TheHeuristicIsAddedWhenNotAskedFor) {
  SweepRequest r = request4000();
  r.methods = {GridMethod::SplitMerge};
  r.factor_lists = {{3}};
  r.groups = {GridGroup::M};
  const auto candidates = sweepCandidates(r);
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0], (GridTraversal{GridMethod::SplitMerge, {3}, GridGroup::M}));
  EXPECT_EQ(candidates[1], scheduler::chooseParams(r.problem, r.device).grid);
}

TEST(SweepCandidates, EmptyListsAreRejected) {
  SweepRequest r = request4000();
  r.groups.clear();
  EXPECT_THROW(sweepCandidates(r), UserError);
  r = request4000();
  r.methods.clear();
  EXPECT_THROW(sweepCandidates(r), UserError);
  r = request4000();
  r.factor_lists.clear();
  EXPECT_THROW(sweepCandidates(r), UserError);
}

class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("tilegrid_sweep_test_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(TuningStore, StoresLooksUpAndKeepsProblemsApart) {
  TempDir dir;
  const TuningStore store(dir.path() / "nested" / "tuned.json");
  const SweepRequest r = request4000();
  EXPECT_FALSE(store.lookup(r.problem, r.device, scheduler::Arch::Sm90).has_value());
  const TunedTraversal tuned{{GridMethod::SwizzleMerge, {8, 2}, GridGroup::N}, 650.5, 601.0};
  store.store(r.problem, r.device, scheduler::Arch::Sm90, tuned);
  const auto found = store.lookup(r.problem, r.device, scheduler::Arch::Sm90);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->traversal, tuned.traversal);
  EXPECT_DOUBLE_EQ(found->tflops, 650.5);
  // Another arch, layout or size is another entry.
  EXPECT_FALSE(store.lookup(r.problem, r.device, scheduler::Arch::Sm80).has_value());
  scheduler::MatmulProblem other = r.problem;
  other.layout = scheduler::Layout::NT;
  EXPECT_FALSE(store.lookup(other, r.device, scheduler::Arch::Sm90).has_value());
  other = r.problem;
  other.k = 4001;
  EXPECT_FALSE(store.lookup(other, r.device, scheduler::Arch::Sm90).has_value());
  // A second entry keeps the first.
  store.store(other, r.device, scheduler::Arch::Sm90, {{GridMethod::None, {1}, GridGroup::M}, 1, 1});
  EXPECT_TRUE(store.lookup(r.problem, r.device, scheduler::Arch::Sm90).has_value());
  EXPECT_EQ(store.lookup(other, r.device, scheduler::Arch::Sm90)->traversal.method, GridMethod::None);
}

TEST(TuningStore, AForeignFileIsAClearError) {
  TempDir dir;
  std::filesystem::create_directories(dir.path());
  std::ofstream(dir.path() / "tuned.json") << "not json";
  const TuningStore store(dir.path() / "tuned.json");
  const SweepRequest r = request4000();
  try {
    store.lookup(r.problem, r.device, scheduler::Arch::Sm90);
    FAIL() << "read a file that is not a tuning store";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("not a tilegrid tuning file"), std::string::npos) << e.what();
  }
}

// A store's version and factors are whole numbers: a string, a fraction or a number past 64 bits
// is an error naming the file, never truncated or wrapped.
TEST(TuningStore, MalformedNumbersAreErrorsNamingTheFile) {
  TempDir dir;
  std::filesystem::create_directories(dir.path());
  const std::filesystem::path file = dir.path() / "tuned.json";
  const TuningStore store(file);
  const SweepRequest r = request4000();
  const std::string key = TuningStore::key(r.problem, r.device, scheduler::Arch::Sm90);
  const auto expectError = [&](const std::string& text, const std::string& needle) {
    std::ofstream(file) << text;
    try {
      store.lookup(r.problem, r.device, scheduler::Arch::Sm90);
      ADD_FAILURE() << "accepted " << text;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectError(R"({"version": "1", "entries": {}})", "format version \"1\"");
  for (const char* factor : {"1.5", "1e300"}) {
    expectError(std::string(R"({"version": 1, "entries": {")") + key +
                    R"(": {"method": "swizzle-merge", "factors": [)" + factor + R"(], "group": "m"}}})",
                "is not a whole number");
  }
}

// Sixteen processes storing at once each keep their entry: every read-modify-write holds the lock.
TEST(TuningStore, ConcurrentWritersLoseNothing) {
  TempDir dir;
  const std::filesystem::path file = dir.path() / "tuned.json";
  const SweepRequest r = request4000();
  constexpr int kWriters = 16;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        scheduler::MatmulProblem p = r.problem;
        p.k = 1000 + w;
        p.validate();
        for (int i = 0; i < 5; ++i) {
          TuningStore(file).store(p, r.device, scheduler::Arch::Sm90, {{GridMethod::None, {1}, GridGroup::M}, 1, 1});
        }
      } catch (...) {
        status = 1;
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int w = 0; w < kWriters; ++w) {
    scheduler::MatmulProblem p = r.problem;
    p.k = 1000 + w;
    p.validate();
    EXPECT_TRUE(TuningStore(file).lookup(p, r.device, scheduler::Arch::Sm90).has_value()) << "writer " << w;
  }
  // Only the store and its lock file remain: no temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 2);
}

// A stored traversal replaces the L2 model's choice for exactly its problem, unless the user
// names a traversal or says --no-tuned.
TEST(TuningStore, PlanUsesTheStoredTraversal) {
  TempDir dir;
  ASSERT_EQ(::setenv("TILEGRID_CACHE_DIR", dir.path().c_str(), 1), 0);
  const SweepRequest r = request4000();
  const TunedTraversal tuned{{GridMethod::SplitMerge, {16}, GridGroup::M}, 650.5, 601.0};
  TuningStore::openDefault()->store(r.problem, r.device, scheduler::Arch::Sm90, tuned);
  const auto plan = [](std::vector<std::string> extra) {
    std::vector<std::string> args{"plan", "--m", "4000", "--n", "4000", "--arch", "sm_90"};
    if (std::find(extra.begin(), extra.end(), "--k") == extra.end()) extra.insert(extra.end(), {"--k", "4000"});
    args.insert(args.end(), extra.begin(), extra.end());
    return testing::runCli(args);
  };
  const auto used = plan({});
  EXPECT_EQ(used.status, 0) << used.err;
  EXPECT_NE(used.out.find("grid split-merge factors=16 group=m"), std::string::npos) << used.out;
  EXPECT_NE(used.out.find("tuned by tilegrid sweep --apply"), std::string::npos);
  for (const auto& extra : std::vector<std::vector<std::string>>{{"--no-tuned"}, {"--method", "swizzle-merge"},
                                                                 {"--k", "4096"}}) {
    const auto untuned = plan(extra);
    EXPECT_EQ(untuned.status, 0) << untuned.err;
    EXPECT_EQ(untuned.out.find("tuned by"), std::string::npos) << extra[0];
    EXPECT_NE(untuned.out.find("params:"), std::string::npos) << extra[0];
    EXPECT_EQ(untuned.out.find("grid split-merge factors=16"), std::string::npos) << extra[0];
  }
  ::unsetenv("TILEGRID_CACHE_DIR");
}

SweepReport madeUpReport() {
  SweepReport report;
  report.problem = request4000().problem;
  report.device = request4000().device;
  report.timed = true;
  report.cublas = TimingStats{1.0, 1.0, 1.0, 600.0};
  double tflops = 640;
  for (const GridTraversal& t : sweepCandidates(request4000())) {
    SweepEntry e;
    e.traversal = t;
    e.heuristic = t == scheduler::chooseParams(report.problem, report.device).grid;
    e.timing = TimingStats{1, 1, 1, tflops};
    tflops -= 5;
    report.entries.push_back(e);
  }
  return report;
}

TEST(SweepPlot, OneLinePerMethodAndGroupWithCublasAndNoneFlat) {
  const SweepReport report = madeUpReport();
  const std::string svg = cli::sweepPlotSvg(report);
  EXPECT_EQ(count(svg, "<polyline"), 4u);  // split-merge and swizzle-merge, each grouped by m and by n
  EXPECT_NE(svg.find(">cuBLAS (600)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">none / group m ("), std::string::npos);
  EXPECT_NE(svg.find(">none / group n ("), std::string::npos);
  // A marker per non-none entry, with its figures in the tooltip; every factor list is an x label.
  EXPECT_EQ(count(svg, " TFLOP/s, "), report.entries.size() - 2);
  EXPECT_NE(svg.find(">8,2</text>"), std::string::npos);
  EXPECT_NE(svg.find("ranks " + std::to_string(report.heuristicRank()) + " of 28"), std::string::npos);
}

TEST(SweepPlot, NeedsTimes) {
  SweepReport report = madeUpReport();
  report.timed = false;
  EXPECT_THROW(cli::sweepPlotSvg(report), UserError);
}

}  // namespace
}  // namespace tilegrid::runtime
