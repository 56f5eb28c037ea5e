#include "tilegrid/scheduler/bank_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/swizzle.h"

namespace tilegrid::scheduler {

namespace {
constexpr int kBanks = 32;
constexpr int kWordBytes = 4;
}  // namespace

std::string Layout2D::toString() const { return fmt::format("({},{}):({},{})", rows, cols, row_stride, col_stride); }

Layout2D Layout2D::parse(const std::string& text) {
  static const std::regex pattern(R"(^\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*:\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s*$)");
  std::smatch match;
  TG_USER_CHECK(std::regex_match(text, match, pattern))
      << "layout '" << text << "' is malformed: expected (R,C):(S0,S1) with integers, e.g. (32,64):(64,1)";
  auto number = [&](int i) {
    try {
      return std::stoll(match[i]);
    } catch (const std::exception&) {
      TG_USER_ERROR() << "layout '" << text << "': '" << match[i] << "' is out of range";
      return 0LL;
    }
  };
  Layout2D layout{number(1), number(2), number(3), number(4)};
  TG_USER_CHECK(layout.rows >= 1 && layout.cols >= 1 && layout.rows <= (1 << 20) && layout.cols <= (1 << 20))
      << "layout '" << text << "': the shape must be between 1 and 2^20 in each mode";
  TG_USER_CHECK(layout.row_stride >= 0 && layout.col_stride >= 0 && layout.row_stride <= (1 << 24) &&
                layout.col_stride <= (1 << 24))
      << "layout '" << text << "': strides must be between 0 and 2^24";
  return layout;
}

BankReport analyzeBanks(const std::vector<std::vector<int64_t>>& lane_bytes, int access_bytes) {
  TG_USER_CHECK(access_bytes == 1 || access_bytes == 2 || access_bytes == 4 || access_bytes == 8 || access_bytes == 16)
      << "a shared-memory access is 1, 2, 4, 8 or 16 bytes wide, got " << access_bytes;
  TG_USER_CHECK(!lane_bytes.empty() && lane_bytes.size() <= 32)
      << "a warp has 1 to 32 lanes, got " << lane_bytes.size();
  BankReport report;
  report.access_bytes = access_bytes;
  const int lanes_per_phase = 128 / std::max(access_bytes, kWordBytes);
  const int lanes = static_cast<int>(lane_bytes.size());
  for (int first = 0; first < lanes; first += lanes_per_phase) {
    BankPhase phase{first, std::min(first + lanes_per_phase, lanes) - 1, 0, 0};
    std::array<std::set<int64_t>, kBanks> words_by_bank;
    std::set<int64_t> words;
    for (int lane = phase.first_lane; lane <= phase.last_lane; ++lane) {
      for (int64_t byte : lane_bytes[static_cast<size_t>(lane)]) {
        TG_USER_CHECK(byte >= 0) << "lane " << lane << " accesses negative byte address " << byte;
        const int64_t word = byte / kWordBytes;
        words_by_bank[static_cast<size_t>(word % kBanks)].insert(word);
        words.insert(word);
        report.lanes_by_word[word].insert(lane);
      }
    }
    for (const auto& bank : words_by_bank) phase.wavefronts = std::max<int64_t>(phase.wavefronts, static_cast<int64_t>(bank.size()));
    phase.ideal = (static_cast<int64_t>(words.size()) + kBanks - 1) / kBanks;
    report.wavefronts += phase.wavefronts;
    report.ideal += phase.ideal;
    report.phases.push_back(phase);
  }
  return report;
}

BankReport analyzeLayoutAccess(const Layout2D& layout, int elem_bytes, int threads, int vec,
                               const std::optional<std::array<int, 3>>& swizzle) {
  TG_USER_CHECK(elem_bytes == 1 || elem_bytes == 2 || elem_bytes == 4 || elem_bytes == 8)
      << "element size must be 1, 2, 4 or 8 bytes, got " << elem_bytes;
  TG_USER_CHECK(threads >= 1 && threads <= 32) << "threads must be between 1 and 32 (one warp), got " << threads;
  TG_USER_CHECK(vec >= 1) << "vector width must be >= 1, got " << vec;
  TG_USER_CHECK(threads <= layout.rows) << "thread t reads row t, but layout " << layout.toString() << " has only "
                                        << layout.rows << " rows for " << threads << " threads";
  TG_USER_CHECK(vec <= layout.cols) << "each thread reads " << vec << " elements of a row, but layout "
                                    << layout.toString() << " has only " << layout.cols << " columns";
  if (swizzle) ir::Swizzle::validate((*swizzle)[0], (*swizzle)[1], (*swizzle)[2]);
  std::vector<std::vector<int64_t>> lane_bytes(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    for (int v = 0; v < vec; ++v) {
      int64_t offset = layout.offset(t, v);
      if (swizzle) offset = ir::Swizzle::apply(offset, (*swizzle)[0], (*swizzle)[1], (*swizzle)[2]);
      lane_bytes[static_cast<size_t>(t)].push_back(offset * elem_bytes);
    }
  }
  return analyzeBanks(lane_bytes, vec * elem_bytes);
}

BankReport analyzeLdmatrix(const std::vector<int64_t>& row_addresses) {
  TG_USER_CHECK(row_addresses.size() % 8 == 0 && !row_addresses.empty() && row_addresses.size() <= 32)
      << "ldmatrix takes 8, 16 or 32 row addresses (x1, x2, x4), got " << row_addresses.size();
  std::vector<std::vector<int64_t>> lane_bytes;
  for (int64_t address : row_addresses) {
    TG_USER_CHECK(address % 16 == 0) << "ldmatrix row address " << address << " is not 16-byte aligned";
    lane_bytes.push_back({address, address + 4, address + 8, address + 12});
  }
  return analyzeBanks(lane_bytes, 16);
}

std::string drawBankMap(const BankReport& report) {
  std::string out;
  if (report.lanes_by_word.empty()) return "no accesses\nwavefronts: 0\nideal: 0\n";
  std::map<int64_t, std::array<std::string, kBanks>> rows;
  size_t width = 2;
  for (const auto& [word, lanes] : report.lanes_by_word) {
    std::string cell;
    for (int lane : lanes) cell += (cell.empty() ? "" : "/") + fmt::format("{:02d}", lane);
    width = std::max(width, cell.size());
    rows[word / kBanks][static_cast<size_t>(word % kBanks)] = std::move(cell);
  }
  const int64_t last_row = rows.rbegin()->first;
  // Empty rows show the stride between accesses, as in seed 001, until there are too many to read.
  const bool all_rows = last_row < 64;
  out += "bank  ";
  for (int b = 0; b < kBanks; ++b) out += fmt::format(" {:>{}}", fmt::format("{:02d}", b), width);
  out += "\n" + std::string(6 + static_cast<size_t>(kBanks) * (width + 1), '-') + "\n";
  for (int64_t r = 0; r <= last_row; ++r) {
    auto it = rows.find(r);
    if (it == rows.end() && !all_rows) continue;
    std::string line = fmt::format("R{:02d} | ", r);
    for (int b = 0; b < kBanks; ++b) {
      const std::string cell = it == rows.end() ? "" : it->second[static_cast<size_t>(b)];
      line += fmt::format(" {:>{}}", cell, width);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!all_rows) out += "(word rows without accesses omitted)\n";
  for (const BankPhase& p : report.phases) {
    out += fmt::format("phase lanes {}-{}: {} wavefront{}\n", p.first_lane, p.last_lane, p.wavefronts,
                       p.wavefronts == 1 ? "" : "s");
  }
  out += fmt::format("wavefronts: {}\nideal: {}\n", report.wavefronts, report.ideal);
  return out;
}

}  // namespace tilegrid::scheduler
