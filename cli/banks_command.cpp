#include "cli/banks_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/parse.h"
#include "ir/error.h"
#include "scheduler/bank_model.h"

namespace tilegrid::cli {

CLI::App* addBanksCommand(CLI::App& app, BanksOptions& options) {
  CLI::App* cmd = app.add_subcommand("banks", "Count the shared-memory wavefronts of a warp reading a layout");
  cmd->add_option("--layout", options.layout, "Element layout (R,C):(S0,S1); thread t reads row t")->required();
  cmd->add_option("--elem-bytes", options.elem_bytes, "Bytes per element: 1, 2, 4 or 8")->capture_default_str();
  cmd->add_option("--threads", options.threads, "Threads reading (1 to 32)")->capture_default_str();
  cmd->add_option("--vec", options.vec, "Elements each thread reads from its row, as one access")->capture_default_str();
  cmd->add_option("--swizzle", options.swizzle, "Swizzle<B,M,S> on element offsets, as B,M,S");
  cmd->add_option("--format", options.format, "text | json")->capture_default_str();
  return cmd;
}

void runBanksCommand(const BanksOptions& options, std::ostream& out) {
  checkFormat(options.format, {"text", "json"});
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
  out << fmt::format("{} elements of {} bytes, {} threads x {} {}\n", layout.toString(), elem, threads, vec,
                     swizzle ? fmt::format("swizzled by Swizzle<{},{},{}>", (*swizzle)[0], (*swizzle)[1], (*swizzle)[2])
                             : std::string("(no swizzle)"));
  out << scheduler::drawBankMap(report);
}

}  // namespace tilegrid::cli
