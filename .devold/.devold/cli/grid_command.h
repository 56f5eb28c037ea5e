#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "tilegrid/scheduler/grid_traversal.h"

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

// One launched CTA: the tile it computes, and whether it computes one at all (split-merge launches
// CTAs past the grid, predicated off).
struct GridCta {
  int64_t cta, tile_m, tile_n;
  bool valid;
};

// Every CTA of a traversal of a tiles_m x tiles_n grid, in launch order, from the Indexer's
// expressions.
struct GridListing {
  int64_t tiles_m = 0, tiles_n = 0;
  scheduler::GridTraversal traversal;
  scheduler::TileGridIndex index;
  std::vector<GridCta> ctas;
  int64_t wasted() const { return static_cast<int64_t>(ctas.size()) - tiles_m * tiles_n; }
};

// The listing `options` asks for (tiles, factor, method, group); UserError naming the option on bad
// input.
GridListing listGrid(const GridOptions& options);

// `tilegrid grid`: registers its options on `app` and returns the options they fill.
CLI::App* addGridCommand(CLI::App& app, GridOptions& options);
void runGridCommand(const GridOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
