#pragma once
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace tilegrid::cli {

struct GridOptions {
  std::string tiles = "8,8";
  std::string factor = "1";
  std::string method = "swizzle-merge";
  std::string group = "m";
  std::string format = "table";
  bool show_index = false;
  // svg: CTAs resident at once (the first wave is outlined); the H100's SM count by default.
  std::string wave = "132";
};

// `tilegrid grid`: registers its options on `app` and returns the options they fill.
CLI::App* addGridCommand(CLI::App& app, GridOptions& options);
void runGridCommand(const GridOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
