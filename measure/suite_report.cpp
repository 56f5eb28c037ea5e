// renderSuiteResults and renderSuiteDataset: a suite run's table and dataset, from its JSON alone
// (measure/suite_run.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "measure/suite_run.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::runtime {
namespace {

const char* kBaselines[] = {"cublas", "cublaslt", "torch"};

// Milliseconds of `baseline` for case `c`, where measured.
std::optional<double> baselineMs(const nlohmann::json& c, const nlohmann::json& torch, const std::string& baseline) {
  if (baseline == "torch") {
    if (!torch.is_object() || !torch.contains("cases") || !torch["cases"].contains(c["name"].get<std::string>())) {
      return std::nullopt;
    }
    const nlohmann::json& t = torch["cases"][c["name"].get<std::string>()];
    if (!t.contains("median_ms")) return std::nullopt;
    return t["median_ms"].get<double>();
  }
  if (!c.contains(baseline)) return std::nullopt;
  return c[baseline]["median_ms"].get<double>();
}

// Our time to set against `baseline`'s: the suite's, except where bench/torch_baseline.py timed
// tilegrid.matmul in the same turns as torch.compile (`tilegrid_ms`). A ratio of two kernels timed
// in one process then stands in for a ratio of runs minutes apart in two.
double oursBeside(const nlohmann::json& c, const nlohmann::json& torch, const std::string& baseline, double ours_ms) {
  if (baseline != "torch") return ours_ms;
  const nlohmann::json& t = torch["cases"][c["name"].get<std::string>()];
  return t.contains("tilegrid_ms") ? t["tilegrid_ms"].get<double>() : ours_ms;
}

struct Summary {
  int count = 0;
  double log_sum = 0;
  double min = 0;
  std::string min_case;
  void add(double ratio, const std::string& name) {
    if (count == 0 || ratio < min) min = ratio, min_case = name;
    ++count;
    log_sum += std::log(ratio);
  }
  std::string text() const {
    return count == 0 ? "-" : fmt::format("{:.3f} (min {:.3f} {})", std::exp(log_sum / count), min, min_case);
  }
};

std::string row(const std::vector<std::string>& cells, const std::vector<size_t>& widths, bool markdown) {
  std::string out = markdown ? "|" : "";
  for (size_t i = 0; i < cells.size(); ++i) {
    out += markdown ? fmt::format(" {} |", cells[i]) : fmt::format("{:<{}}  ", cells[i], widths[i]);
  }
  return out + "\n";
}

// A Markdown table's line under its header.
std::string separator(size_t columns) {
  std::string s = "|";
  for (size_t i = 0; i < columns; ++i) s += "---|";
  return s + "\n";
}

// Where a suite times problems under other schedules beside the scheduler's ("config": "default"),
// how far the scheduler's schedule is from the fastest measured: the share within kChoiceMargin,
// the geometric mean and the farthest, with the schedule that beat it. The dataset tests hold
// the same share on checked-in runs; a run on the GPU measures it anew.
constexpr double kChoiceMargin = 1.03;

std::string choiceSummary(const nlohmann::json& results) {
  struct Problem {
    std::optional<double> chosen_ms;
    double fastest_ms = 0;
    std::string fastest_config;
    int schedules = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Problem> problems;
  for (const nlohmann::json& c : results.at("cases")) {
    if (c.contains("error") || !c.contains("config")) continue;
    const std::string config = c.at("config").get<std::string>();
    const std::string name = problemName(c.at("name").get<std::string>(), config);
    const double ms = c.at("ours").at("median_ms").get<double>();
    auto [it, inserted] = problems.try_emplace(name);
    if (inserted) order.push_back(name);
    Problem& p = it->second;
    if (p.schedules == 0 || ms < p.fastest_ms) p.fastest_ms = ms, p.fastest_config = config;
    ++p.schedules;
    if (config == "default") p.chosen_ms = ms;
  }
  int compared = 0, within = 0;
  double log_sum = 0, worst = 0;
  std::string worst_name, worst_config;
  for (const std::string& name : order) {
    const Problem& p = problems.at(name);
    if (!p.chosen_ms || p.schedules < 2) continue;
    const double slower = *p.chosen_ms / p.fastest_ms;
    ++compared;
    within += slower <= kChoiceMargin;
    log_sum += std::log(slower);
    if (slower > worst) worst = slower, worst_name = name, worst_config = p.fastest_config;
  }
  if (compared == 0) return "";
  return fmt::format(
      "\nThe scheduler's schedule against the fastest measured, over the {} problems timed under other schedules "
      "too: within {:.0f}% on {} ({:.0f}%), time over the fastest {:.3f} (geometric mean), at most {:.3f} ({}{}).\n",
      compared, (kChoiceMargin - 1) * 100, within, 100.0 * within / compared, std::exp(log_sum / compared), worst,
      worst_name, worst > 1 ? ", against " + worst_config : "");
}

}  // namespace

std::string renderSuiteResults(const nlohmann::json& results, const nlohmann::json& torch, bool markdown,
                               bool summary_only) {
  std::string out;
  const nlohmann::json& device = results.at("device");
  out += fmt::format("{}{} ({} SMs, driver CUDA {}, NVRTC {}), {}\n\n", markdown ? "Measured on " : "device: ",
                     device.value("gpu", "?"), device.value("sm_count", "?"), device.value("driver_cuda_version", "?"),
                     device.value("nvrtc", "?"), results.value("date", "?"));
  const bool with_torch = torch.is_object() && torch.contains("cases");
  // Runs that timed the plain read of the inputs (measure/read_inputs.h) get its column.
  // Runs that timed ours with the shape compiled in (--versus-specialized) get its column.
  bool with_read = false, with_specialized = false;
  for (const nlohmann::json& c : results.at("cases")) {
    with_read = with_read || c.contains("read_inputs");
    with_specialized = with_specialized || c.contains("specialized");
  }
  std::vector<std::string> header = {"case", "category", "ours TFLOP/s", "cuBLAS", "cuBLASLt"};
  if (with_torch) header.push_back("torch.compile");
  header.insert(header.end(), {"/cuBLAS", "/cuBLASLt"});
  if (with_torch) header.push_back("/torch");
  if (with_read) header.push_back("read/ours");
  if (with_specialized) header.push_back("/compiled-in");
  header.push_back("check");
  std::vector<size_t> widths = {34, 12, 12, 8, 8, 13, 8, 9, 7, 6};
  widths.resize(header.size(), 9);
  std::string rows = row(header, widths, markdown);
  if (markdown) rows += separator(header.size());
  std::vector<std::string> categories;
  std::map<std::string, std::map<std::string, Summary>> summaries;  // category -> baseline -> ratios
  for (const nlohmann::json& c : results.at("cases")) {
    const std::string name = c.at("name").get<std::string>(), category = c.value("category", "?");
    if (summaries.find(category) == summaries.end()) categories.push_back(category);
    summaries[category];
    if (c.contains("error")) {
      rows += row({name, category, "error: " + c["error"].get<std::string>()}, widths, markdown);
      continue;
    }
    const double ours_ms = c.at("ours").at("median_ms").get<double>();
    const double flop = c.at("flop").get<double>();
    const auto tflops = [&](std::optional<double> ms) { return ms ? fmt::format("{:.1f}", flop / (*ms * 1e-3) / 1e12) : "-"; };
    std::vector<std::string> cells = {name, category, tflops(ours_ms)};
    std::vector<std::string> ratios;
    for (const char* baseline : kBaselines) {
      if (std::string(baseline) == "torch" && !with_torch) continue;
      const std::optional<double> ms = baselineMs(c, torch, baseline);
      cells.push_back(tflops(ms));
      const double ratio = ms ? *ms / oursBeside(c, torch, baseline, ours_ms) : 0;
      ratios.push_back(ms ? fmt::format("{:.3f}", ratio) : "-");
      if (ms) {
        summaries[category][baseline].add(ratio, name);
        summaries["all"][baseline].add(ratio, name);
      }
    }
    cells.insert(cells.end(), ratios.begin(), ratios.end());
    // A contender timed beside ours, over ours, as a column and in the summaries: the plain read of
    // A and B (the share of its bandwidth ours reaches), and ours with the shape compiled in (above
    // 1 where reading it at launch is faster).
    const auto over_ours = [&](const char* field, const char* summary) {
      const bool timed = c.contains(field);
      const double ratio = timed ? c[field]["median_ms"].get<double>() / ours_ms : 0;
      cells.push_back(timed ? fmt::format("{:.3f}", ratio) : "-");
      if (timed) {
        summaries[category][summary].add(ratio, name);
        summaries["all"][summary].add(ratio, name);
      }
    };
    if (with_read) over_ours("read_inputs", "read");
    if (with_specialized) over_ours("specialized", "specialized");
    const nlohmann::json& checks = c.at("checks");
    const bool ok = checks.at("ours").at("passed").get<bool>() && (!checks.contains("cublaslt") || checks["cublaslt"].at("passed").get<bool>()) &&
                    (!checks.contains("specialized") || checks["specialized"].at("passed").get<bool>());
    cells.push_back(ok ? "ok" : "FAIL");
    rows += row(cells, widths, markdown);
  }
  if (!summary_only) out += rows + "\n";
  out += markdown ? "Ours over each baseline (time ratio, > 1: ours faster): geometric mean, and the minimum with its case.\n"
                  : "ours over each baseline (> 1: ours faster): geometric mean (min, case)\n";
  bool torch_beside_ours = false;
  if (with_torch) {
    for (const auto& [name, t] : torch["cases"].items()) torch_beside_ours = torch_beside_ours || t.contains("tilegrid_ms");
  }
  if (torch_beside_ours) {
    out += markdown ? "torch.compile's ratios are to tilegrid.matmul timed in the same turns, in torch.compile's process.\n"
                    : "torch.compile: over tilegrid.matmul timed in the same turns, in its process\n";
  }
  if (markdown) out += "\n";
  categories.push_back("all");
  std::vector<std::string> summary_header = {"category", "cases", "vs cuBLAS", "vs cuBLASLt"};
  if (with_torch) summary_header.push_back("vs torch.compile");
  if (with_read) summary_header.push_back("plain read of A and B over ours");
  if (with_specialized) summary_header.push_back("vs the shape compiled in");
  const std::vector<size_t> summary_widths = {14, 5, 44, 44, 44, 44, 44};
  out += row(summary_header, summary_widths, markdown);
  if (markdown) out += separator(summary_header.size());
  for (const std::string& category : categories) {
    auto& by = summaries[category];
    // Runs of 8-bit inputs have no cuBLAS time: they count where cuBLASLt's is.
    const int runs = std::max(by["cublas"].count, by["cublaslt"].count);
    std::vector<std::string> cells = {category, std::to_string(runs), by["cublas"].text(),
                                      by["cublaslt"].text()};
    if (with_torch) cells.push_back(by["torch"].text());
    if (with_read) cells.push_back(by["read"].text());
    if (with_specialized) cells.push_back(by["specialized"].text());
    out += row(cells, summary_widths, markdown);
  }
  return out + choiceSummary(results);
}

std::string renderSuiteDataset(const nlohmann::json& results) {
  // Runs with fused epilogues add their text, quoted, and cuBLASLt's fused epilogue's time where it has
  // one (empty otherwise).
  bool epilogues = false;
  for (const nlohmann::json& c : results.at("cases")) epilogues = epilogues || c.contains("epilogue");
  std::string out = std::string("m,n,k,batch,layout,config,kernel,ours_us,cublas_us") +
                    (epilogues ? ",cublaslt_us,epilogue\n" : "\n");
  for (const nlohmann::json& c : results.at("cases")) {
    if (c.contains("error")) continue;
    TG_USER_CHECK(c.contains("m") && c.contains("config") && c.contains("launch"))
        << "case '" << c.value("name", "?") << "' was run by a driver that did not record its schedule; run it again";
    // cuBLAS takes no 8-bit inputs: such runs leave its time empty.
    const std::string cublas =
        c.contains("cublas") ? fmt::format("{:.1f}", c["cublas"].at("median_ms").get<double>() * 1e3) : "";
    out += fmt::format("{},{},{},{},{},{},{},{:.1f},{}", c.at("m").get<int64_t>(), c.at("n").get<int64_t>(),
                       c.at("k").get<int64_t>(), c.at("batch").get<int64_t>(), c.at("layout").get<std::string>(),
                       c.at("config").get<std::string>(), c.at("launch").get<std::string>(),
                       c.at("ours").at("median_ms").get<double>() * 1e3, cublas);
    if (epilogues) {
      const std::string lt =
          c.contains("cublaslt") ? fmt::format("{:.1f}", c["cublaslt"].at("median_ms").get<double>() * 1e3) : "";
      out += fmt::format(",{},\"{}\"", lt, c.value("epilogue", ""));
    }
    out += "\n";
  }
  return out;
}

}  // namespace tilegrid::runtime
