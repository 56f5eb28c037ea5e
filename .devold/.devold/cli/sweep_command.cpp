#include "cli/sweep_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include <sstream>
#include <ostream>

#include "cli/parse.h"
#include "cli/sweep_plot.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/swizzle_merge.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/file_write.h"
#include "measure/grid_sweep.h"
#include "tilegrid/runtime/tuning_store.h"

namespace tilegrid::cli {

namespace {

// A progress bar on stderr, shown once a sweep has run for two seconds, and only to a terminal
// (or when TILEGRID_PROGRESS=1) so logs and pipes stay clean.
class ProgressBar {
 public:
  ProgressBar() {
    const char* force = std::getenv("TILEGRID_PROGRESS");
    enabled_ = force != nullptr ? std::string(force) == "1" : ::isatty(STDERR_FILENO) == 1;
  }
  ~ProgressBar() {
    if (shown_) std::cerr << "\r" << std::string(width_, ' ') << "\r" << std::flush;
  }
  void update(size_t done, size_t total, const std::string& step) {
    if (!enabled_ || std::chrono::steady_clock::now() - start_ < std::chrono::seconds(2)) return;
    shown_ = true;
    const size_t filled = total == 0 ? 0 : 30 * done / total;
    std::string line = fmt::format("[{}{}] {}/{} {}", std::string(filled, '#'), std::string(30 - filled, '.'), done,
                                   total, step);
    if (line.size() > 100) line.resize(100);
    width_ = std::max(width_, line.size());
    std::cerr << "\r" << line << std::string(width_ - line.size(), ' ') << std::flush;
  }

 private:
  bool enabled_ = false, shown_ = false;
  size_t width_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

std::string factorsText(const std::vector<int64_t>& f) { return fmt::format("{}", fmt::join(f, ",")); }

nlohmann::json entryJson(const runtime::SweepReport& report, size_t rank) {
  const runtime::SweepEntry& e = report.entries[rank];
  nlohmann::json j{{"rank", rank + 1},
                   {"method", scheduler::toString(e.traversal.method)},
                   {"factors", e.traversal.factors},
                   {"group", scheduler::toString(e.traversal.group)},
                   {"heuristic", e.heuristic},
                   {"kernel", e.kernel_name},
                   {"tiles", e.tiles},
                   {"work_units", e.work_units},
                   {"ctas", e.ctas},
                   {"wasted_tiles", e.wasted_tiles},
                   {"registers", e.registers}};
  if (e.timing) {
    j["tflops"] = e.timing->tflops;
    j["median_ms"] = e.timing->median_ms;
    j["min_ms"] = e.timing->min_ms;
    j["max_ms"] = e.timing->max_ms;
    j["ratio_cublas"] = e.timing->tflops / report.cublas->tflops;
  }
  if (e.errors) j["check"] = {{"norm_rel", e.errors->norm_rel}, {"max_rel", e.errors->max_rel}, {"passed", e.errors->passed}};
  return j;
}

void writeResults(const runtime::SweepReport& report, const std::string& file) {
  const bool json = file.ends_with(".json");
  std::ostringstream out;
  if (json) {
    nlohmann::json j{{"problem", report.problem.toString()},
                     {"device", {{"name", report.device.name}, {"sm_count", report.device.sm_count}}},
                     {"arch", scheduler::toString(report.arch)},
                     {"timed", report.timed},
                     {"skipped", report.skipped}};
    if (report.cublas) j["cublas"] = {{"tflops", report.cublas->tflops}, {"median_ms", report.cublas->median_ms}};
    j["heuristic_rank"] = report.heuristicRank();
    for (size_t i = 0; i < report.entries.size(); ++i) j["entries"].push_back(entryJson(report, i));
    out << j.dump(2) << "\n";
  } else {
    out << "rank,method,factors,group,heuristic,tflops,median_ms,ratio_cublas,tiles,work_units,ctas,wasted_tiles,"
           "registers,norm_rel,passed,kernel\n";
    for (size_t i = 0; i < report.entries.size(); ++i) {
      const runtime::SweepEntry& e = report.entries[i];
      const auto cell = [](bool has, double v, const char* spec) { return has ? fmt::format(fmt::runtime(spec), v) : std::string(); };
      out << fmt::format("{},{},\"{}\",{},{},{},{},{},{},{},{},{},{},{},{},{}\n", i + 1,
                         scheduler::toString(e.traversal.method), factorsText(e.traversal.factors),
                         scheduler::toString(e.traversal.group), e.heuristic ? 1 : 0,
                         cell(e.timing.has_value(), e.timing ? e.timing->tflops : 0, "{:.2f}"),
                         cell(e.timing.has_value(), e.timing ? e.timing->median_ms : 0, "{:.5f}"),
                         cell(e.timing.has_value(), e.timing ? e.timing->tflops / report.cublas->tflops : 0, "{:.4f}"),
                         e.tiles, e.work_units, e.ctas, e.wasted_tiles, e.registers,
                         cell(e.errors.has_value(), e.errors ? e.errors->norm_rel : 0, "{:.3e}"),
                         e.errors ? (e.errors->passed ? "1" : "0") : "", e.kernel_name);
    }
  }
  runtime::writeFileAtomically(file, out.str(), "--out");
}

void printTable(const runtime::SweepReport& report, std::ostream& out) {
  out << fmt::format("{:>4}  {:<13}  {:<7}  {:<5}  {:>8}  {:>9}  {:>8}  {:>6}  {:>6}  {}\n", "rank", "method", "factors",
                     "group", "TFLOP/s", "vs cuBLAS", "ms", "CTAs", "wasted", "check");
  for (size_t i = 0; i < report.entries.size(); ++i) {
    const runtime::SweepEntry& e = report.entries[i];
    const bool none = e.traversal.method == scheduler::GridMethod::None;
    out << fmt::format("{:>4}  {:<13}  {:<7}  {:<5}  {:>8}  {:>9}  {:>8}  {:>6}  {:>6}  {}{}\n", i + 1,
                       scheduler::toString(e.traversal.method), none ? "-" : factorsText(e.traversal.factors),
                       scheduler::toString(e.traversal.group),
                       e.timing ? fmt::format("{:.1f}", e.timing->tflops) : "-",
                       e.timing ? fmt::format("{:.3f}", e.timing->tflops / report.cublas->tflops) : "-",
                       e.timing ? fmt::format("{:.4f}", e.timing->median_ms) : "-", e.ctas, e.wasted_tiles,
                       e.errors ? (e.errors->passed ? "ok" : "FAIL") : "-", e.heuristic ? "  <- heuristic" : "");
  }
}

}  // namespace

CLI::App* addSweepCommand(CLI::App& app, SweepCommandOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Time every grid traversal (method x factor x group) for one problem, ranked, next to cuBLAS");
  addPlanOptions(*cmd, options.plan);
  // The traversal is what the sweep varies.
  for (const char* name : {"--factor", "--method", "--group"}) cmd->remove_option(cmd->get_option(name));
  cmd->add_option("--methods", options.methods, "Grid methods to try: none split-merge swizzle-merge")
      ->capture_default_str();
  cmd->add_option("--factors", options.factors, "Factors to try; a list such as 8,2 is one multi-level entry")
      ->capture_default_str();
  cmd->add_option("--groups", options.groups, "Grouped dimensions to try: m n")->capture_default_str();
  cmd->add_option("--iters", options.iters, "Timed runs per candidate (median reported)")->capture_default_str();
  cmd->add_flag("--check,!--no-check", options.check, "Check every candidate against cuBLAS (default on)");
  cmd->add_option("--out", options.out_file, "Write every result to a .csv or .json file");
  cmd->add_option("--plot", options.plot_file, "Draw TFLOP/s against factor as an SVG file");
  cmd->add_flag("--apply", options.apply, "Store the fastest traversal so tilegrid run uses it for this problem on this GPU");
  return cmd;
}

int runSweepCommand(const SweepCommandOptions& options, std::ostream& out) {
  TG_USER_CHECK(options.iters >= 1 && options.iters <= 10000) << "--iters: expected 1 to 10000, got " << options.iters;
  TG_USER_CHECK(options.plot_file.empty() || options.plot_file.ends_with(".svg"))
      << "--plot: '" << options.plot_file << "' must end in .svg";
  TG_USER_CHECK(options.out_file.empty() || options.out_file.ends_with(".json") || options.out_file.ends_with(".csv"))
      << "--out: '" << options.out_file << "' must end in .csv or .json";
  // The sweep takes minutes: where its results cannot go is said before it starts.
  if (!options.out_file.empty()) runtime::checkCanWriteFile(options.out_file, "--out");
  if (!options.plot_file.empty()) runtime::checkCanWriteFile(options.plot_file, "--plot");
  std::string no_device;
  const std::optional<scheduler::DeviceSpec> device = runtime::findDeviceSpec(no_device);
  TG_USER_CHECK(device || !options.apply) << "--apply needs a GPU to measure on: " << no_device;
  PlanOptions plan = options.plan;
  plan.tuned = false;  // the sweep ranks the heuristic's own choice, not an earlier tuning
  const PlanRequest request = parsePlanOptions(plan, device);

  runtime::SweepRequest sweep;
  sweep.problem = request.problem;
  sweep.device = request.device;
  sweep.base = request.overrides;
  sweep.methods.clear();
  for (const std::string& m : options.methods) sweep.methods.push_back(forOption("--methods", [&] { return scheduler::parseGridMethod(m); }));
  sweep.factor_lists.clear();
  for (const std::string& f : options.factors) {
    sweep.factor_lists.push_back(parseIntList(f, "--factors"));
    forOption("--factors", [&] { ir::validateSwizzleFactors(sweep.factor_lists.back()); });
  }
  sweep.groups.clear();
  for (const std::string& g : options.groups) sweep.groups.push_back(forOption("--groups", [&] { return scheduler::parseGridGroup(g); }));

  runtime::SweepOptions run;
  run.run = device.has_value();
  run.check = options.check;
  run.iterations = options.iters;
  ProgressBar progress;
  run.progress = [&](size_t done, size_t total, const std::string& step) { progress.update(done, total, step); };
  runtime::SweepReport report = runtime::sweepGrid(sweep, run);

  out << fmt::format("sweep    {}\ndevice   {}\nkernels  {}, {} candidates\n", report.problem.toString(),
                     report.device.toString(), scheduler::toString(report.arch), report.entries.size());
  for (const std::string& s : report.skipped) out << "skipped  " << s << "\n";
  if (report.cublas) {
    out << fmt::format("cuBLAS   {:.1f} TFLOP/s ({:.4f} ms); every figure is the median of {} runs, taken in turns with the others\n", report.cublas->tflops,
                       report.cublas->median_ms, options.iters);
  }
  out << "\n";
  printTable(report, out);
  if (!options.out_file.empty()) writeResults(report, options.out_file);
  if (!report.timed) {
    TG_USER_CHECK(options.plot_file.empty()) << "--plot needs measured times, and there is no GPU: " << no_device;
    out << "\nnot timed: " << no_device << " (every candidate was emitted and compiled)\n";
    return 0;
  }
  const runtime::SweepEntry& best = report.entries.front();
  const runtime::SweepEntry& heuristic = report.entries[report.heuristicRank() - 1];
  out << fmt::format("\nbest       {} at {:.1f} TFLOP/s, {:.3f}x cuBLAS\n", best.traversal.toString(),
                     best.timing->tflops, best.timing->tflops / report.cublas->tflops);
  out << fmt::format("heuristic  {} ranks {} of {}: {:.3f}x the best\n", heuristic.traversal.toString(),
                     report.heuristicRank(), report.entries.size(), heuristic.timing->tflops / best.timing->tflops);
  if (!options.plot_file.empty()) {
    runtime::writeFileAtomically(options.plot_file, sweepPlotSvg(report), "--plot");
    out << "plot       " << options.plot_file << "\n";
  }
  if (!report.allPassed()) {
    out << "FAIL: a candidate's result differs from cuBLAS beyond the tolerance; nothing applied\n";
    return 1;
  }
  if (options.apply) {
    const auto store = runtime::TuningStore::openDefault();
    TG_USER_CHECK(store.has_value()) << "--apply: no place for the tuning store; set TILEGRID_CACHE_DIR or HOME";
    store->store(report.problem, report.device, report.arch,
                 {best.traversal, best.timing->tflops, report.cublas->tflops});
    out << fmt::format("applied    {} stored in {}; tilegrid run uses it for this problem on this GPU\n",
                       best.traversal.toString(), store->file().string());
  }
  return 0;
}

}  // namespace tilegrid::cli
