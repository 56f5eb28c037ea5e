// `tilegrid grid`: which tile each CTA of a traversal computes, in launch order.
#include "cli/grid_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/parse.h"
#include "cli/svg.h"
#include "tilegrid/codegen/cuda_printer.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/grid_traversal.h"

namespace tilegrid::cli {
namespace {

// Large enough for any real GEMM's tile grid, small enough that csv output stays a file, not a flood.
constexpr int64_t kMaxCtas = int64_t{1} << 24;

std::vector<std::pair<std::string, std::string>> indexDeclarations(const GridListing& listing) {
  const codegen::VarRanges ranges{{listing.index.cta.name(), static_cast<int64_t>(listing.ctas.size()) - 1}};
  std::vector<std::pair<std::string, std::string>> decls{
      {"tile_m", codegen::declareIndex("tile_m", listing.index.tile_m, ranges)},
      {"tile_n", codegen::declareIndex("tile_n", listing.index.tile_n, ranges)}};
  if (!listing.index.valid.constValue()) {
    decls.emplace_back("valid", codegen::declareIndex("valid", listing.index.valid, ranges));
  }
  return decls;
}

std::string summary(const GridListing& listing) {
  return fmt::format("CTAs launched: {}, tiles: {}, wasted CTAs: {}", listing.ctas.size(),
                     listing.tiles_m * listing.tiles_n, listing.wasted());
}

void printCsv(const GridListing& listing, bool show_index, std::ostream& out) {
  if (show_index) {
    for (const auto& [name, decl] : indexDeclarations(listing)) out << "# " << decl << "\n";
  }
  out << "cta,tile_m,tile_n,valid\n";
  for (const GridCta& c : listing.ctas) out << fmt::format("{},{},{},{}\n", c.cta, c.tile_m, c.tile_n, c.valid ? 1 : 0);
}

void printJson(const GridListing& listing, bool show_index, std::ostream& out) {
  nlohmann::json j;
  j["tiles"] = {{"m", listing.tiles_m}, {"n", listing.tiles_n}};
  j["traversal"] = {{"method", scheduler::toString(listing.traversal.method)},
                    {"factors", listing.traversal.factors},
                    {"group", scheduler::toString(listing.traversal.group)}};
  j["ctas_launched"] = listing.ctas.size();
  j["tile_count"] = listing.tiles_m * listing.tiles_n;
  j["wasted_ctas"] = listing.wasted();
  if (show_index) {
    nlohmann::json index;
    index["tile_m"] = listing.index.tile_m.toString();
    index["tile_n"] = listing.index.tile_n.toString();
    index["valid"] = listing.index.valid.toString();
    j["index"] = index;
  }
  // The CTAs are streamed, one line each: a document of millions of them held as a JSON tree took
  // gigabytes.
  std::string head = j.dump(2);
  TG_INTERNAL_CHECK(head.size() >= 2 && head.substr(head.size() - 2) == "\n}") << "unexpected JSON layout";
  head.resize(head.size() - 2);
  out << head << ",\n  \"ctas\": [";
  for (size_t i = 0; i < listing.ctas.size(); ++i) {
    const GridCta& c = listing.ctas[i];
    out << (i ? ",\n    " : "\n    ")
        << fmt::format(R"({{"cta": {}, "tile_m": {}, "tile_n": {}, "valid": {}}})", c.cta, c.tile_m, c.tile_n,
                       c.valid ? "true" : "false");
  }
  out << "\n  ]\n}\n";
}

// The tile grid with each tile's launch order. Overhanging CTAs (split-merge) land outside the
// M x N grid: they get their own rows or columns past a separator, marked with '*'.
void printTable(const GridListing& listing, bool show_index, std::ostream& out) {
  int64_t rows = listing.tiles_m, cols = listing.tiles_n;
  for (const GridCta& c : listing.ctas) {
    rows = std::max(rows, c.tile_m + 1);
    cols = std::max(cols, c.tile_n + 1);
  }
  TG_USER_CHECK(rows <= 512 && cols <= 128) << "a grid of " << rows << " x " << cols
                                            << " tiles is too large to draw as a table (at most 512 x 128); "
                                               "use --format csv or json";
  std::vector<std::vector<int64_t>> order(static_cast<size_t>(rows), std::vector<int64_t>(static_cast<size_t>(cols), -1));
  for (const GridCta& c : listing.ctas) order[static_cast<size_t>(c.tile_m)][static_cast<size_t>(c.tile_n)] = c.cta;

  const int width = static_cast<int>(std::to_string(listing.ctas.size()).size()) + 1;
  const int label = static_cast<int>(std::to_string(rows).size()) + 3;
  out << fmt::format("tile grid {} x {}, {}: launch order of each tile (blockIdx.x)\n", listing.tiles_m,
                     listing.tiles_n, listing.traversal.toString());
  std::string header(static_cast<size_t>(label), ' ');
  for (int64_t n = 0; n < cols; ++n) {
    if (n == listing.tiles_n) header += " |";
    header += fmt::format(" {:>{}}", fmt::format("n{}", n), width);
  }
  out << header << "\n";
  for (int64_t m = 0; m < rows; ++m) {
    if (m == listing.tiles_m) out << std::string(header.size(), '-') << "\n";
    std::string line = fmt::format("{:<{}}", fmt::format("m{}", m), label);
    for (int64_t n = 0; n < cols; ++n) {
      if (n == listing.tiles_n) line += " |";
      const int64_t cta = order[static_cast<size_t>(m)][static_cast<size_t>(n)];
      const bool overhang = m >= listing.tiles_m || n >= listing.tiles_n;
      const std::string cell = cta < 0 ? "." : std::to_string(cta) + (overhang ? "*" : "");
      line += fmt::format(" {:>{}}", cell, width);
    }
    out << line << "\n";
  }
  if (listing.wasted() > 0) out << "* overhanging CTA: launched, but its predicate is false\n";
  if (show_index) {
    out << "index expressions (from the Indexer):\n";
    for (const auto& [name, decl] : indexDeclarations(listing)) out << "  " << decl << "\n";
  }
  out << summary(listing) << "\n";
}

// The picture of nvFuser issue #3942 (seed 003): every tile coloured by its launch order, the tiles
// of the first wave outlined, and split-merge's overhanging CTAs in red past a gap.
void printSvg(const GridListing& listing, int64_t wave, std::ostream& out) {
  int64_t rows = listing.tiles_m, cols = listing.tiles_n;
  for (const GridCta& c : listing.ctas) {
    rows = std::max(rows, c.tile_m + 1);
    cols = std::max(cols, c.tile_n + 1);
  }
  TG_USER_CHECK(rows * cols <= 256 * 256) << "a grid of " << rows << " x " << cols
                                          << " tiles is too large to draw (at most 65536 tiles); use --format csv";
  const double cell = std::clamp(720.0 / static_cast<double>(std::max(rows, cols)), 3.0, 36.0);
  const double gap = cell / 2, left = 48, top = 64;
  // Overhanging rows and columns sit past a gap.
  auto x = [&](int64_t n) { return left + static_cast<double>(n) * cell + (n >= listing.tiles_n ? gap : 0); };
  auto y = [&](int64_t m) { return top + static_cast<double>(m) * cell + (m >= listing.tiles_m ? gap : 0); };
  const double width = x(cols) + (cols > listing.tiles_n ? 0 : gap) + 24;
  const double height = y(rows) + (rows > listing.tiles_m ? 0 : gap) + 40;
  Svg svg(std::max(width, 560.0), height);
  const std::string heading = fmt::format("tile grid {} x {}, {}", listing.tiles_m, listing.tiles_n,
                                          listing.traversal.toString());
  svg.title(heading + ": launch order of each tile");
  svg.text(left, 22, heading, 15);
  svg.text(left, 42,
           fmt::format("colour: launch order (dark first); outlined: first wave of {} CTAs{}", wave,
                       listing.wasted() > 0 ? "; red: overhanging CTAs (launched, predicated off)" : ""),
           11);
  std::vector<std::vector<int64_t>> order(static_cast<size_t>(rows), std::vector<int64_t>(static_cast<size_t>(cols), -1));
  const double last = std::max<double>(1.0, static_cast<double>(listing.ctas.size()) - 1);
  for (const GridCta& c : listing.ctas) {
    order[static_cast<size_t>(c.tile_m)][static_cast<size_t>(c.tile_n)] = c.cta;
    const double t = static_cast<double>(c.cta) / last;
    const std::string fill = c.valid ? sequentialColor(t) : "#d62728";
    svg.rect(x(c.tile_n), y(c.tile_m), cell, cell, fill, "white", cell >= 8 ? 0.5 : 0,
             fmt::format("CTA {} -> tile (m {}, n {}){}", c.cta, c.tile_m, c.tile_n, c.valid ? "" : ", overhang"));
    if (cell >= 18) {
      svg.text(x(c.tile_n) + cell / 2, y(c.tile_m) + cell / 2 + 4, std::to_string(c.cta), std::min(11.0, cell / 2.6),
               "middle", t < 0.6 && c.valid ? "#fff" : "#222");
    }
  }
  // The first wave's outline: every edge between a first-wave tile and one that is not.
  auto in_wave = [&](int64_t m, int64_t n) {
    if (m < 0 || n < 0 || m >= rows || n >= cols) return false;
    const int64_t cta = order[static_cast<size_t>(m)][static_cast<size_t>(n)];
    return cta >= 0 && cta < wave;
  };
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t n = 0; n < cols; ++n) {
      if (!in_wave(m, n)) continue;
      const double x0 = x(n), y0 = y(m), x1 = x0 + cell, y1 = y0 + cell;
      if (!in_wave(m - 1, n)) svg.line(x0, y0, x1, y0, "#000", 2.5);
      if (!in_wave(m + 1, n)) svg.line(x0, y1, x1, y1, "#000", 2.5);
      if (!in_wave(m, n - 1)) svg.line(x0, y0, x0, y1, "#000", 2.5);
      if (!in_wave(m, n + 1)) svg.line(x1, y0, x1, y1, "#000", 2.5);
    }
  }
  svg.text(left, height - 14, summary(listing), 11);
  out << svg.str();
}

}  // namespace

GridListing listGrid(const GridOptions& options) {
  GridListing listing;
  const std::vector<int64_t> tiles = parseIntList(options.tiles, "--tiles");
  TG_USER_CHECK(tiles.size() == 2) << "--tiles: expected two tile counts M,N, got '" << options.tiles << "'";
  listing.tiles_m = tiles[0];
  listing.tiles_n = tiles[1];
  TG_USER_CHECK(tiles[0] >= 1 && tiles[1] >= 1) << "--tiles: tile counts must be >= 1, got " << options.tiles;
  TG_USER_CHECK(tiles[0] <= kMaxCtas && tiles[1] <= kMaxCtas && tiles[0] * tiles[1] <= kMaxCtas)
      << "--tiles: " << options.tiles << " is more than " << kMaxCtas << " tiles; tilegrid grid lists every CTA";
  listing.traversal.method = scheduler::parseGridMethod(options.method);
  listing.traversal.group = scheduler::parseGridGroup(options.group);
  listing.traversal.factors = parseIntList(options.factor, "--factor");
  for (int64_t f : listing.traversal.factors) {
    TG_USER_CHECK(f >= 1 && f <= kMaxCtas) << "--factor: factors must be between 1 and " << kMaxCtas << ", got " << f;
  }
  ir::TensorDomain grid = scheduler::buildTileGrid(ir::Val(tiles[0]), ir::Val(tiles[1]), listing.traversal);
  listing.index = scheduler::indexTileGrid(grid);
  const auto ctas = listing.index.ctas.constValue();
  TG_INTERNAL_CHECK(ctas.has_value()) << "a grid of constant extents launched " << listing.index.ctas.toString();
  TG_USER_CHECK(*ctas <= kMaxCtas) << "the " << listing.traversal.toString() << " traversal of " << options.tiles
                                   << " tiles launches " << *ctas << " CTAs, more than " << kMaxCtas;
  const std::vector<std::string> vars{listing.index.cta.name()};
  ir::CompiledVal tile_m(listing.index.tile_m, vars), tile_n(listing.index.tile_n, vars),
      valid(listing.index.valid, vars);
  for (int64_t cta = 0; cta < *ctas; ++cta) {
    const int64_t at[1] = {cta};
    listing.ctas.push_back({cta, tile_m(at), tile_n(at), valid(at) != 0});
  }
  return listing;
}

CLI::App* addGridCommand(CLI::App& app, GridOptions& options) {
  CLI::App* cmd = app.add_subcommand("grid", "Show which output tile each CTA of a grid traversal computes");
  cmd->add_option("--tiles", options.tiles, "Tile-grid size M,N (tiles along m and n)")->capture_default_str();
  cmd->add_option("--factor", options.factor, "Grouping factor, or a list for swizzle-merge (e.g. 8,2)")
      ->capture_default_str();
  cmd->add_option("--method", options.method, "none | split-merge | swizzle-merge")->capture_default_str();
  cmd->add_option("--group", options.group, "Dimension cut into groups of <factor> tiles: m | n")->capture_default_str();
  cmd->add_option("--format", options.format, "csv | table | json | svg")->capture_default_str();
  cmd->add_option("--wave", options.wave, "svg: CTAs resident at once; the first wave is outlined")
      ->capture_default_str();
  cmd->add_flag("--show-index", options.show_index, "Print the CUDA index expressions for tile_m and tile_n");
  return cmd;
}

void runGridCommand(const GridOptions& options, std::ostream& out) {
  checkChoice("--format", options.format, {"csv", "table", "json", "svg"});
  const int64_t wave = parseInt(options.wave, "--wave");
  TG_USER_CHECK(wave >= 1) << "--wave: CTAs per wave must be >= 1, got " << wave;
  const GridListing listing = listGrid(options);
  if (options.format == "svg") {
    printSvg(listing, wave, out);
  } else if (options.format == "csv") {
    printCsv(listing, options.show_index, out);
  } else if (options.format == "json") {
    printJson(listing, options.show_index, out);
  } else {
    printTable(listing, options.show_index, out);
  }
}

}  // namespace tilegrid::cli
