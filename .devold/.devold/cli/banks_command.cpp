#include "cli/banks_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <array>
#include <map>
#include <ostream>
#include <set>

#include "cli/parse.h"
#include "cli/svg.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/bank_model.h"

namespace tilegrid::cli {

namespace {

// The bank map as a picture: one row of 32 banks per 128 bytes touched, each word coloured by how
// many lanes read it, then a bar of threads per bank, red where a bank serves more than one distinct
// word within a phase (a conflict). Wavefronts and the ideal count are in the title.
void printBankSvg(const scheduler::BankReport& report, const std::string& heading, std::ostream& out) {
  constexpr int kBanks = 32;
  std::map<int64_t, int> row_index;  // word row -> drawn row, rows without accesses left out
  for (const auto& [word, lanes] : report.lanes_by_word) row_index.emplace(word / kBanks, 0);
  int drawn = 0;
  for (auto& [row, index] : row_index) index = drawn++;
  TG_USER_CHECK(drawn <= 512) << "the access touches " << drawn
                              << " rows of 128 bytes, too many to draw (at most 512); use --format text";
  const double cell = 26, left = 56, top = 72;
  const double map_bottom = top + drawn * cell;
  const double height = map_bottom + 3 * cell + 40;
  Svg svg(left + kBanks * cell + 24, height);
  const std::string verdict = fmt::format("wavefronts: {} (ideal {})", report.wavefronts, report.ideal);
  svg.title(heading + ": " + verdict);
  svg.text(left, 22, heading, 14);
  svg.text(left, 42, verdict + (report.wavefronts > report.ideal ? " - bank conflicts" : " - conflict free"), 12,
           "start", report.wavefronts > report.ideal ? "#d62728" : "#2ca02c");
  for (int b = 0; b < kBanks; ++b) svg.text(left + (b + 0.5) * cell, top - 6, std::to_string(b), 9, "middle");
  std::array<std::set<int>, kBanks> lanes_by_bank;
  // Distinct words per bank within one phase: what a bank serves one wavefront at a time.
  std::array<std::map<size_t, std::set<int64_t>>, kBanks> words_by_bank_phase;
  auto phase_of = [&](int lane) {
    for (size_t p = 0; p < report.phases.size(); ++p) {
      if (lane >= report.phases[p].first_lane && lane <= report.phases[p].last_lane) return p;
    }
    TG_INTERNAL_CHECK(false) << "lane " << lane << " is in no phase";
    return size_t{0};
  };
  size_t most_lanes = 1;
  for (const auto& [word, lanes] : report.lanes_by_word) most_lanes = std::max(most_lanes, lanes.size());
  for (const auto& [row, index] : row_index) svg.text(left - 6, top + (index + 0.65) * cell, fmt::format("R{}", row), 9, "end");
  for (const auto& [word, lanes] : report.lanes_by_word) {
    const int bank = static_cast<int>(word % kBanks);
    const double x = left + bank * cell, y = top + row_index.at(word / kBanks) * cell;
    std::string names;
    for (int lane : lanes) names += (names.empty() ? "" : ", ") + std::to_string(lane);
    svg.rect(x, y, cell, cell, sequentialColor(0.25 + 0.75 * static_cast<double>(lanes.size()) / static_cast<double>(most_lanes)),
             "white", 0.5, fmt::format("word {} (bank {}): lanes {}", word, bank, names));
    if (lanes.size() == 1) svg.text(x + cell / 2, y + cell * 0.65, std::to_string(*lanes.begin()), 9, "middle", "#fff");
    lanes_by_bank[static_cast<size_t>(bank)].insert(lanes.begin(), lanes.end());
    for (int lane : lanes) words_by_bank_phase[static_cast<size_t>(bank)][phase_of(lane)].insert(word);
  }
  const double bar_y = map_bottom + cell;
  svg.text(left - 6, bar_y + cell * 0.65, "lanes", 9, "end");
  for (int b = 0; b < kBanks; ++b) {
    const auto& lanes = lanes_by_bank[static_cast<size_t>(b)];
    if (lanes.empty()) continue;
    size_t words = 0;
    for (const auto& [phase, set] : words_by_bank_phase[static_cast<size_t>(b)]) words = std::max(words, set.size());
    svg.rect(left + b * cell, bar_y, cell, cell, words > 1 ? "#d62728" : "#c7e9c0", "white", 0.5,
             fmt::format("bank {}: {} lanes, at most {} distinct words in one phase", b, lanes.size(), words));
    svg.text(left + (b + 0.5) * cell, bar_y + cell * 0.65, std::to_string(lanes.size()), 10, "middle");
  }
  svg.text(left, height - 14, "lanes per bank; red: the bank serves more than one distinct word in a phase (a conflict)", 11);
  out << svg.str();
}

}  // namespace

CLI::App* addBanksCommand(CLI::App& app, BanksOptions& options) {
  CLI::App* cmd = app.add_subcommand("banks", "Count the shared-memory wavefronts of a warp reading a layout");
  cmd->add_option("--layout", options.layout, "Element layout (R,C):(S0,S1); thread t reads row t")->required();
  cmd->add_option("--elem-bytes", options.elem_bytes, "Bytes per element: 1, 2, 4 or 8")->capture_default_str();
  cmd->add_option("--threads", options.threads, "Threads reading (1 to 32)")->capture_default_str();
  cmd->add_option("--vec", options.vec, "Elements each thread reads from its row, as one access")->capture_default_str();
  cmd->add_option("--swizzle", options.swizzle, "Swizzle<B,M,S> on element offsets, as B,M,S");
  cmd->add_option("--format", options.format, "text | json | svg")->capture_default_str();
  return cmd;
}

void runBanksCommand(const BanksOptions& options, std::ostream& out) {
  checkChoice("--format", options.format, {"text", "json", "svg"});
  const scheduler::Layout2D layout = scheduler::Layout2D::parse(options.layout);
  const int64_t elem = parseInt(options.elem_bytes, "--elem-bytes");
  const int64_t threads = parseInt(options.threads, "--threads");
  const int64_t vec = parseInt(options.vec, "--vec");
  TG_USER_CHECK(vec >= 1 && vec <= 16) << "--vec: expected 1 to 16 elements, got " << vec;
  TG_USER_CHECK(elem >= 1 && elem <= 8) << "--elem-bytes: expected 1, 2, 4 or 8, got " << elem;
  TG_USER_CHECK(threads >= 1 && threads <= 32) << "--threads: expected 1 to 32, got " << threads;
  std::optional<std::array<int, 3>> swizzle;
  if (!options.swizzle.empty()) {
    const auto bms = parseIntList(options.swizzle, "--swizzle");
    TG_USER_CHECK(bms.size() == 3) << "--swizzle: expected B,M,S, got '" << options.swizzle << "'";
    for (int64_t v : bms) TG_USER_CHECK(v >= -64 && v <= 64) << "--swizzle: " << v << " is out of range";
    swizzle = std::array<int, 3>{static_cast<int>(bms[0]), static_cast<int>(bms[1]), static_cast<int>(bms[2])};
  }
  const scheduler::BankReport report = scheduler::analyzeLayoutAccess(
      layout, static_cast<int>(elem), static_cast<int>(threads), static_cast<int>(vec), swizzle);
  if (options.format == "json") {
    nlohmann::json j;
    j["layout"] = layout.toString();
    j["elem_bytes"] = elem;
    j["threads"] = threads;
    j["vec"] = vec;
    j["access_bytes"] = report.access_bytes;
    if (swizzle) j["swizzle"] = *swizzle;
    j["wavefronts"] = report.wavefronts;
    j["ideal"] = report.ideal;
    nlohmann::json phases = nlohmann::json::array();
    for (const auto& p : report.phases) {
      phases.push_back({{"lanes", {p.first_lane, p.last_lane}}, {"wavefronts", p.wavefronts}, {"ideal", p.ideal}});
    }
    j["phases"] = phases;
    nlohmann::json words = nlohmann::json::array();
    for (const auto& [word, lanes] : report.lanes_by_word) {
      words.push_back({{"word", word}, {"bank", word % 32}, {"lanes", lanes}});
    }
    j["words"] = words;
    out << j.dump(2) << "\n";
    return;
  }
  const std::string description = fmt::format(
      "{} elements of {} bytes, {} threads x {} {}", layout.toString(), elem, threads, vec,
      swizzle ? fmt::format("swizzled by Swizzle<{},{},{}>", (*swizzle)[0], (*swizzle)[1], (*swizzle)[2])
              : std::string("(no swizzle)"));
  if (options.format == "svg") {
    printBankSvg(report, description, out);
    return;
  }
  out << description << "\n" << scheduler::drawBankMap(report);
}

}  // namespace tilegrid::cli
