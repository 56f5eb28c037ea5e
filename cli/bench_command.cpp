#include "cli/bench_command.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli/parse.h"
#include "measure/suite_run.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/file_write.h"

namespace tilegrid::cli {
namespace {

nlohmann::json readJson(const std::string& path, const char* what) {
  std::ifstream in(path);
  TG_USER_CHECK(in.good()) << "cannot read " << what << " '" << path << "'";
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    TG_USER_ERROR() << what << " '" << path << "' is not JSON: " << e.what();
  }
  return {};
}

// Several saved runs of one suite (split by --filter, say) as one: the first's device and date, every
// case. Runs from different GPUs are refused.
nlohmann::json mergeRuns(const std::vector<std::string>& paths) {
  nlohmann::json merged;
  for (const std::string& path : paths) {
    nlohmann::json run = readJson(path, "the saved run");
    TG_USER_CHECK(run.is_object() && run.contains("cases") && run.contains("device"))
        << "'" << path << "' is not a saved `tilegrid bench` run (no \"cases\" and \"device\")";
    if (merged.is_null()) {
      merged = std::move(run);
      continue;
    }
    TG_USER_CHECK(run["device"].value("gpu", "") == merged["device"].value("gpu", ""))
        << "'" << path << "' ran on " << run["device"].value("gpu", "?") << ", the first run on "
        << merged["device"].value("gpu", "?") << ": only runs on one GPU render as one table";
    for (nlohmann::json& c : run["cases"]) merged["cases"].push_back(std::move(c));
  }
  return merged;
}

// torch.compile's times from several files, as one {"cases": {...}}.
nlohmann::json mergeTorch(const std::vector<std::string>& paths) {
  if (paths.empty()) return {};
  nlohmann::json merged{{"cases", nlohmann::json::object()}};
  for (const std::string& path : paths) {
    const nlohmann::json t = readJson(path, "the torch.compile results");
    TG_USER_CHECK(t.is_object() && t.contains("cases") && t["cases"].is_object())
        << "'" << path << "' is not bench/torch_baseline.py's output (no \"cases\" object)";
    for (const auto& [name, value] : t["cases"].items()) merged["cases"][name] = value;
  }
  return merged;
}

}  // namespace

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Run a benchmark suite on the GPU: ours, cuBLAS and cuBLASLt checked and timed in turns (or render a saved run)");
  cmd->add_option("--suite", options.suite, "The suite: a JSON list of cases (bench/suites/shapes.json)");
  cmd->add_option("--filter", options.filter, "Only cases whose \"name category\" matches this regular expression");
  cmd->add_option("--json", options.json, "Write the run's results, as JSON, to this file");
  cmd->add_option("--from", options.from, "Render saved runs (JSON, one or more, as one table) instead of running; no GPU needed");
  cmd->add_option("--torch", options.torch, "Add torch.compile's times from bench/torch_baseline.py's JSON (one or more files)");
  cmd->add_option("--format", options.format,
                  "text | markdown | dataset (CSV rows of a tile dataset: each case's schedule, kernel and the "
                  "medians of ours and cuBLAS)")
      ->capture_default_str();
  cmd->add_option("--turns", options.turns, "Timed turns per case, at least")->capture_default_str();
  cmd->add_option("--seconds", options.seconds, "Seconds of timing per case, at least")->capture_default_str();
  cmd->add_option("--arch", options.arch,
                  "sm_80 | sm_90: the kernel family of ours (default: the scheduler's, the GPU's own but for TN problems of a "
                  "few K tiles on sm_90, which run in sm_80; sm_80 kernels also run on sm_90)");
  cmd->add_option("--flush", options.flush,
                  "write | read: how the L2 is evicted before each timed launch: by zeroing a buffer twice its size "
                  "(as nvbench and Triton's do_bench do; the L2 is left full of written lines) or by reading it (clean "
                  "lines)")
      ->capture_default_str();
  cmd->add_flag("--list", options.list, "List the suite's cases and stop");
  cmd->add_flag("--summary", options.summary, "Print only the per-category summary, not a row per case");
  cmd->add_flag("--versus-specialized", options.versus_specialized,
                "Also check and time ours with each problem's shape compiled in, in the same turns: what reading it at "
                "launch costs (cases whose kernel compiles it in anyway, and dot kernels, skip it)");
  return cmd;
}

int runBenchCommand(const BenchOptions& options, std::ostream& out) {
  checkChoice("--format", options.format, {"text", "markdown", "dataset"});
  checkChoice("--flush", options.flush, {"write", "read"});
  TG_USER_CHECK(options.turns >= 1 && options.turns <= 100000) << "--turns: expected 1 to 100000, got " << options.turns;
  TG_USER_CHECK(options.seconds >= 0 && options.seconds <= 60) << "--seconds: expected 0 to 60, got " << options.seconds;
  TG_USER_CHECK(options.from.empty() != options.suite.empty()) << "give --suite to run a suite, or --from to render a saved run";
  // Checked before anything else runs: a bad --arch is the user's error on any machine.
  const std::optional<scheduler::Arch> arch =
      options.arch.empty() ? std::nullopt : std::optional<scheduler::Arch>(scheduler::parseArch(options.arch));
  const runtime::L2Flush flush = runtime::parseL2Flush(options.flush);
  const nlohmann::json torch = mergeTorch(options.torch);
  const bool markdown = options.format == "markdown";
  const auto render = [&](const nlohmann::json& results) {
    return options.format == "dataset" ? runtime::renderSuiteDataset(results)
                                       : runtime::renderSuiteResults(results, torch, markdown, options.summary);
  };
  if (!options.from.empty()) {
    out << render(mergeRuns(options.from));
    return 0;
  }
  std::vector<runtime::SuiteCase> cases = runtime::readSuite(options.suite);
  if (!options.filter.empty()) {
    std::regex pattern;
    try {
      pattern = std::regex(options.filter);
    } catch (const std::regex_error& e) {
      TG_USER_ERROR() << "--filter: '" << options.filter << "' is not a regular expression: " << e.what();
    }
    std::erase_if(cases, [&](const runtime::SuiteCase& c) { return !std::regex_search(c.name + " " + c.category, pattern); });
    TG_USER_CHECK(!cases.empty()) << "--filter '" << options.filter << "' matches no case of " << options.suite;
  }
  if (options.list) {
    for (const runtime::SuiteCase& c : cases) out << fmt::format("{:<36} {:<14} {}\n", c.name, c.category, c.problem.toString());
    out << cases.size() << " cases\n";
    return 0;
  }
  std::string no_device;
  TG_USER_CHECK(runtime::findDeviceSpec(no_device).has_value()) << "tilegrid bench runs on a GPU: " << no_device;
  if (!options.json.empty()) runtime::checkCanWriteFile(options.json, "--json");
  runtime::SuiteRunOptions run;
  run.turns = options.turns;
  run.arch = arch;
  run.seconds = options.seconds;
  run.versus_specialized = options.versus_specialized;
  run.flush = flush;
  size_t done = 0;
  run.progress = [&](const nlohmann::json& r) {
    std::cerr << fmt::format("[{}/{}] {}{}\n", ++done, cases.size(), r["name"].get<std::string>(),
                             r.contains("error") ? ": " + r["error"].get<std::string>() : "");
  };
  const nlohmann::json results = runtime::runSuite(cases, run);
  if (!options.json.empty()) runtime::writeFileAtomically(options.json, results.dump(2) + "\n", "--json");
  out << render(results);
  bool failed = false;
  for (const nlohmann::json& c : results["cases"]) {
    failed = failed || c.contains("error") || !c["checks"]["ours"]["passed"].get<bool>() ||
             (c["checks"].contains("specialized") && !c["checks"]["specialized"]["passed"].get<bool>());
  }
  return failed ? 1 : 0;
}

}  // namespace tilegrid::cli
