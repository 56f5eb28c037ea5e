#pragma once
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace tilegrid::cli {

struct BanksOptions {
  std::string layout;
  std::string elem_bytes = "4";
  std::string threads = "32";
  std::string vec = "1";
  std::string swizzle;
  std::string format = "text";
};

// `tilegrid banks`: the bank map and wavefront count of one warp-wide shared-memory read.
CLI::App* addBanksCommand(CLI::App& app, BanksOptions& options);
void runBanksCommand(const BanksOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
