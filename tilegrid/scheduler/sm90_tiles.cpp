#include "tilegrid/scheduler/sm90_tiles.h"

#include <fmt/format.h>

#include <algorithm>

#include "tilegrid/scheduler/one_wave_tile.h"
#include "tilegrid/scheduler/sm90_tile_ranking.h"
#include "tilegrid/scheduler/tile_eligibility.h"
#include "tilegrid/scheduler/wave_model.h"
#include "tilegrid/scheduler/work_split.h"

namespace tilegrid::scheduler {

bool givesHalfTheSmsATile(const MatmulProblem& problem, const DeviceSpec& device, int64_t cta_m, int64_t cta_n) {
  return 2 * ceilDiv(problem.m, cta_m) * ceilDiv(problem.n, cta_n) * problem.batch >= device.sm_count;
}

void setSm90Tile(MatmulParams& p, const TileShape& cta, int64_t consumer_rows) {
  p.cta_tile = cta;
  p.warp_tile = TileShape{consumer_rows, cta.n, cta.k};
  p.instruction_tile = TileShape{64, cta.n, 16};
}

// Pairs of CTAs along M share their B tile by TMA multicast, which halves B's L2 reads (the bound of
// a lone CTA's loop on large problems; docs/findings.md). A lone tile row has no pair.
ClusterShape pairedCluster(const MatmulProblem& problem, const MatmulParams& p) {
  return p.persistent && ceilDiv(problem.m, p.cta_tile.m) >= 2 ? ClusterShape{2, 1} : ClusterShape{1, 1};
}

namespace {

// Pairs only over an even number of tile rows: an odd one leaves half a pair empty
// (docs/results/small_problem_pairs_h100.csv: 896x2048x4096, 384x4096x8192).
ClusterShape evenRowPairs(const MatmulProblem& problem, const MatmulParams& p) {
  return ceilDiv(problem.m, p.cta_tile.m) % 2 == 0 ? pairedCluster(problem, p) : ClusterShape{1, 1};
}

// The most tile rows one cluster spans for units cut in step.
constexpr int64_t kMostRowsInOneCutCluster = 4;

// Units cut in step read at the rate their bytes leave L2 (docs/findings.md), and a cluster along M
// reads its B tile once for all its CTAs. Over at most four tile rows, one cluster spanning them all
// reads B once for the whole problem, against once a pair (or once a row, alone over odd rows); the
// CTA past M over three rows loads zero-filled boxes that read nothing. The saving grows with the
// reads it removes and with the pieces' length: largest over three rows (B read three times alone),
// least over four rows at K of 8192 or less, where pairs are level with it. Over more rows, clusters
// of four cut fewer pieces a unit or leave more CTAs past M, and were slower
// (docs/results/cut_fours_h200.csv).
ClusterShape cutUnitCluster(const MatmulProblem& problem, const MatmulParams& p) {
  const int64_t rows = ceilDiv(problem.m, p.cta_tile.m);
  if (!p.persistent || rows <= 2 || rows > kMostRowsInOneCutCluster) return evenRowPairs(problem, p);
  return ClusterShape{kMostRowsInOneCutCluster, 1};
}

constexpr int64_t kLongestKForNarrowTiles = 8192;
// A wave of 128x256 tiles whose units are this many K tiles or fewer runs faster as twice the 128x128
// units where both operands are K-major (chooseSmallTileSm90).
constexpr int64_t kMostKTilesForTwoSquares = 8;
// Beyond K = 8192, 128x128 tiles stay unless in-step cuts would split each unit into this many
// pieces or more (chooseSmallTileSm90).
constexpr int64_t kMostPiecesForSquareTiles = 12;

// The narrowest width (a multiple of kLaunchWidthStep, at least kTrimmedNarrowWidths' narrowest) that
// covers `n` columns in as many tiles as `width` does. A wgmma's time and a stage's B bytes grow
// with its N, so where the tile count stays the same, the padded columns cut off are time saved.
int64_t trimmedWidth(int64_t n, int64_t width) {
  const int64_t columns = ceilDiv(n, width);
  const int64_t trimmed = ceilDiv(ceilDiv(n, columns), kLaunchWidthStep) * kLaunchWidthStep;
  return std::clamp(trimmed, kTrimmedNarrowWidths.narrowest, width);
}

// The default sm_90 tile, and the square tile of the small-problem rules.
constexpr TileShape kWideTile{128, 256, 64}, kSquareTile{128, 128, 64};

// A stream-K kernel's wave of 128x256 tiles filling at least 2/3 of the SMs alone, on 32-byte sectors,
// of units of kMostKTilesForTwoSquares K tiles or fewer over K-major operands: 128x128 tiles, two a
// CTA, run faster (chooseSmallTileSm90 says why).
bool shortUnitsOnTwoSquares(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k) {
  const WaveFit wide = fitWaves(problem, kWideTile.m, kWideTile.n, kWideTile.k, 1, device.sm_count, stream_k);
  return stream_k && wide.waves >= 2.0 / 3 && wide.waves <= 1 && rowsOnSectors(problem) &&
         majorOfA(problem.layout) == Major::K && majorOfB(problem.layout) == Major::K &&
         ceilDiv(problem.k, kWideTile.k) <= kMostKTilesForTwoSquares;
}

// Under half a wave, stream-K cuts every unit into the same K pieces (inStepPieces, the split's own
// rule). The K tiles each piece would get, whether or not the split then finds the cut worth its
// hand-overs; a whole unit's where it does not cut in step.
int64_t inStepPieceKTiles(const MatmulProblem& problem, const WaveFit& fit, int64_t cta_k) {
  const int64_t k_tiles = ceilDiv(problem.k, cta_k);
  const int64_t pieces = inStepPieces(fit.units, fit.slots, k_tiles);
  return pieces > 0 ? k_tiles / pieces : k_tiles;
}

// Problems of at most a wave of 128x256 tiles, where no ranked shape fits. Three costs decide, each
// measured in pairs of configurations on an H100 (docs/results/small_problem_pairs_h100.csv, held by
// tests/unit/tile_dataset_test.cpp):
// - A cut unit pays for every piece with a round trip of its partial sum through L2, which only long
//   pieces amortize. Under half a wave of 128x256 pairs, those stay where each in-step piece spans at
//   least 128 K tiles; shorter pieces take 128x128 tiles (twice the units, half the pieces each).
// - More, smaller tiles put more SMs to reading: under half a wave of 128x128, 64x128 pairs, unless K
//   is over 8192, where 128x128 pairs cut into a few pieces amortize their partial sums over long K.
//   Cut into 12 pieces or more, every 128x128 unit takes that many whole-tile partial sums, which
//   64x128 pairs halve (twice the units, half the pieces each) for a third more L2 reads; with 11
//   pieces or fewer the hand-overs weigh less than the reads, and 128x128 stays. The threshold lies
//   between the piece counts the dataset measured either way (docs/results/cut_pieces_h100.csv, its
//   deciding pairs in small_problem_pairs_h100.csv; figures in docs/findings.md). 64x128 tiles alone
//   over a K-major B are trimmed to the problem's width where that cuts off 8 columns or more
//   (trimmedWidth: 4096x200x4096 in two columns of 104). Trimmed tiles read their width at
//   launch, so every width from 64 to 120 shares one kernel; at the full width that kernel is
//   slower than 64x128 compiled alone, so an untrimmed tile keeps its own. 128x128 tiles alone take
//   the one-wave fit's kernel of widths 112-128, which runs them as fast as their own kernel: one
//   kernel fewer over N at M = K = 4096 (docs/design.md, *Kernels as configurations*).
// - A pair's multicast halves B's L2 reads but costs the cluster's start-up and leaves half a pair idle
//   on an odd tile row. Tiles run alone where they nearly fill the SMs at once (64x128 from 80% over at
//   most 8 tile columns; 128x128 over at least 8 tile rows within 1.1 waves where K is at most 8192 or
//   they fill 90%; 128x256 from 2/3) and the rows start on 32-byte sectors. Rows off sectors make every
//   TMA box row straddle one more line, so each CTA's loads cost more; the halved reads of a pair
//   recover more than the idle half of a pair costs, so 128x256 tiles then pair even over odd rows
//   (14 such problems in the pairs dataset, 1000x3000x4096 NT among them).
// - Where N is 128 or less and 128x128 tiles are at most half the SMs, the same 64x128 pairs.
// - A wave of 128x256 units a few K tiles long is mostly each unit's start: its first loads' latency
//   and its epilogue. Split into 128x128 units, two a CTA, the second unit's loads land while the
//   first is stored, so one of the two starts is hidden; the loop's speed matters little over so few
//   K tiles. With both operands K-major that won or tied on every problem measured, up to 8 K tiles
//   (docs/results/short_k_tiles_h100.csv: 24 problems of 120-128 tiles of 128x256 with K of 64 to
//   512, held by tests/unit/tile_dataset_test.cpp); with M- and N-major operands (NT) neither tile
//   led (the same problems, within a few percent either way), and 128x256 stays.
std::optional<std::string> chooseSmallTileSm90(const MatmulProblem& problem, const DeviceSpec& device,
                                               MatmulParams& p, std::optional<WidthRange>& widths) {
  constexpr int64_t kShortestPieceForWideTiles = 128;
  const TileShape wide = kWideTile, square = kSquareTile, narrow{64, 128, 64};
  const auto is = [&](const TileShape& t) { return p.cta_tile.m == t.m && p.cta_tile.n == t.n; };
  const auto fit = [&](const TileShape& t, int64_t cluster_m) {
    return fitWaves(problem, t.m, t.n, t.k, cluster_m, device.sm_count / cluster_m, p.stream_k);
  };
  const auto waves = [&](const TileShape& t, int64_t cluster_m) { return fit(t, cluster_m).waves; };
  const bool on_sectors = rowsOnSectors(problem);
  const auto narrow_alone = [&] {
    return waves(narrow, 1) >= 0.8 && waves(narrow, 1) <= 1 && ceilDiv(problem.n, narrow.n) <= 8 && on_sectors;
  };
  const auto square_fits = [&] {
    return waves(square, 1) <= 1.1 && ceilDiv(problem.m, square.m) >= 8 &&
           (problem.k <= kLongestKForNarrowTiles || waves(square, 1) >= 0.9);
  };
  const bool wide_under_half = is(wide) && p.stream_k && waves(wide, p.cluster.m) < 0.5;
  const bool wide_cut_short =
      wide_under_half && inStepPieceKTiles(problem, fit(wide, p.cluster.m), wide.k) < kShortestPieceForWideTiles;
  // The in-step pieces each 128x128 unit would be cut into, paired as they would pair; 0 where a
  // whole tile grid of one tile is left to shortOrOneTileSm90.
  const auto square_pieces = [&] {
    const int64_t rows = ceilDiv(problem.m, square.m), columns = ceilDiv(problem.n, square.n);
    if (rows * columns * problem.batch < 2) return int64_t{0};
    const WaveFit f = fit(square, rows % 2 == 0 ? 2 : 1);
    return inStepPieces(f.units, f.slots, ceilDiv(problem.k, square.k));
  };
  const int64_t pieces = problem.k > kLongestKForNarrowTiles ? square_pieces() : 0;
  const bool narrow_fits =
      waves(square, 1) <= 0.5 && (problem.k <= kLongestKForNarrowTiles || pieces >= kMostPiecesForSquareTiles);
  if (wide_cut_short || (is(square) && narrow_fits)) {
    setSm90Tile(p, narrow_fits ? narrow : square);
    const bool alone = narrow_fits ? narrow_alone() : square_fits() && on_sectors;
    // Where stream-K cuts the units of a cluster of four in step, the cluster's rows decide the L2 reads.
    const bool cut_in_step =
        narrow_fits && planWorkSplit(ceilDiv(problem.n, narrow.n) * problem.batch,
                                     device.sm_count / kMostRowsInOneCutCluster, ceilDiv(problem.k, narrow.k),
                                     p.stream_k)
                               .pieces >= 2;
    p.cluster = alone ? ClusterShape{1, 1} : cut_in_step ? cutUnitCluster(problem, p) : evenRowPairs(problem, p);
    std::string trim;
    if (!narrow_fits && alone) widths = kOneWaveFitWidths;
    if (narrow_fits && alone) {
      const TileShape trimmed{narrow.m, trimmedWidth(problem.n, narrow.n), narrow.k};
      if (trimmed.n < narrow.n && widestAtoms(problem, trimmed)) {
        setSm90Tile(p, trimmed);
        widths = kTrimmedNarrowWidths;
        trim = fmt::format(", {} columns wide ({} in {} tiles)", trimmed.n, problem.n, ceilDiv(problem.n, narrow.n));
      }
    }
    return std::string("chooseSmallTileSm90: ") +
           (!narrow_fits ? "128x256 pairs would be cut into pieces under 128 K tiles: 128x128"
            : problem.k <= kLongestKForNarrowTiles
                ? "128x128 tiles fill at most half a wave and K is at most 8192: 64x128"
                : fmt::format("128x128 tiles fill at most half a wave and would be cut into {} pieces a unit: 64x128",
                              pieces)) +
           (alone                ? ", alone (they fill most of a wave on 32-byte sectors)"
            : p.cluster.m == kMostRowsInOneCutCluster
                ? fmt::format(", in one cluster of {} over the {} tile rows (B leaves L2 once)", p.cluster.m,
                              ceilDiv(problem.m, p.cta_tile.m))
            : p.cluster.m == 2 ? ", in pairs over even tile rows"
                               : ", alone over odd tile rows") +
           trim;
  }
  if (wide_under_half) {
    p.cluster = evenRowPairs(problem, p);
    return "chooseSmallTileSm90: 128x256 under half a wave, cut into pieces of 128 K tiles or more: kept, pairs over "
           "even tile rows";
  }
  if (is(wide) && waves(wide, 1) <= 1) {
    const bool fills = waves(wide, 1) >= 2.0 / 3;
    const bool square_instead = p.stream_k && !fills && square_fits();
    const bool short_units = shortUnitsOnTwoSquares(problem, device, p.stream_k);
    if (square_instead || short_units) setSm90Tile(p, square);
    if (short_units) {
      p.cluster = ClusterShape{1, 1};
    } else if (square_instead) {
      p.cluster = on_sectors ? ClusterShape{1, 1} : evenRowPairs(problem, p);
      if (on_sectors) widths = kOneWaveFitWidths;
    } else if (fills) {
      p.cluster = on_sectors ? ClusterShape{1, 1} : pairedCluster(problem, p);
    } else {
      p.cluster = evenRowPairs(problem, p);
    }
    return std::string("chooseSmallTileSm90: at most a wave of 128x256: ") +
           (short_units      ? fmt::format("units of {} K tiles or fewer over K-major operands: 128x128, two a CTA, alone",
                                           kMostKTilesForTwoSquares)
            : square_instead ? "128x128 fill at least 8 tile rows within 1.1 waves"
            : !fills       ? "kept, pairs over even tile rows"
            : on_sectors   ? "they fill 2/3 of the SMs, alone"
                           : "they fill 2/3 of the SMs, in pairs (rows off 32-byte sectors)");
  }
  return std::nullopt;
}

// Where M is at most 64, the problem is bound by reading B, and the more SMs read it the faster it
// goes: the widest tile whose tiles give at least half the SMs one (wider tiles read B in longer
// runs; fewer than half the SMs reading leaves bandwidth unused). Measured: docs/findings.md
// (*Measurements behind the tile rules*).
int64_t skinnyTileWidth(const MatmulProblem& problem, const DeviceSpec& device) {
  for (int64_t width : {256, 128}) {
    if (givesHalfTheSmsATile(problem, device, 64, width)) return width;
  }
  return 64;
}

// The skinny tile: 64 rows as wide as skinnyTileWidth. Where that is 64 columns, a stage of 64 deep
// holds 8 KiB of B, and the stage's barrier round trip, not DRAM, bounds each SM's read rate; 128
// deep doubles the bytes each round trip brings (the narrow tiles' 256-deep stages are the same
// trade) and still fits six stages. Measured at M = 48 and 64 on six Llama-3 projections, TN and NT,
// against 64x64x64 and C^T tiles: docs/results/decode_rows_h100.csv, held by
// tests/unit/tile_dataset_test.cpp. Wider tiles keep 64: their stages already hold 32-64 KiB of B.
// So does K under 2048, where a unit's loop is a few stages long and start-up, not the read rate,
// is its time: the measured problems reach down to K = 2048 (the e4m3 runs at K = 4096, scheduled as
// the 16-bit problem of K/2), not below.
TileShape skinnyTile(const MatmulProblem& problem, const DeviceSpec& device) {
  constexpr int64_t kNarrowestWidth = 64, kDeepK = 128, kShallowK = 64, kShortestKForDeep = 2048;
  const int64_t width = skinnyTileWidth(problem, device);
  const bool deep = width == kNarrowestWidth && problem.k >= kShortestKForDeep;
  return TileShape{64, width, deep ? kDeepK : kShallowK};
}

}  // namespace

// Where 128x128 tiles would run alone over about a wave, 128-row tiles as wide as fills the SMs
// once, computing C or C^T (oneWaveTileSm90), as cuBLAS fits its tiles: no tile waits for a second
// wave or for another's partial sum. Not where B's tile would be N-major, whose swizzle atoms narrow
// with such widths. The fit also replaces other tiles, alone or in pairs, that do not already fill
// one wave with at most 5% more padding, where M and N exceed 128; a ranked tile that fills its one
// wave with 97% real output stays. The problems measured each way: docs/findings.md
// (*Measurements behind the tile rules*).
std::optional<std::string> fitOneWaveSm90(const MatmulProblem& user_problem, const DeviceSpec& device, MatmulParams& p) {
  if (!p.persistent) return std::nullopt;
  const std::optional<OneWaveTile> fit = oneWaveTileSm90(user_problem, device);
  if (!fit) return std::nullopt;
  constexpr double kPaddingSlack = 0.05;
  const bool square_alone = !p.swap_ab && p.cta_tile.m == 128 && p.cta_tile.n == 128 && p.cluster.m == 1;
  // Two 128x128 tiles a CTA where units are short run faster than one wave of wider ones.
  if (square_alone && shortUnitsOnTwoSquares(p.kernelProblem(user_problem), device, p.stream_k)) return std::nullopt;
  if (!square_alone && (std::min(user_problem.m, user_problem.n) <= 128 ||
                        fillsOneWave(p.kernelProblem(user_problem), p.cta_tile, device, fit->useful - kPaddingSlack))) {
    return std::nullopt;
  }
  p.swap_ab = fit->swap_ab;
  setSm90Tile(p, TileShape{128, fit->width, 64});
  p.cluster = ClusterShape{1, 1};
  return fmt::format("fitOneWaveSm90: {} tiles of 128x{}{} fill one wave, {:.1f}% of the padded grid real output",
                     fit->tiles, fit->width, fit->swap_ab ? " computing C^T" : "", fit->useful * 100);
}

// A problem whose smaller side (M or N) is at most half a wgmma's 64 rows does at most that many
// flops per byte of its large operand, a fraction of what the tensor cores could do while the large
// operand streams in: its time is reading that operand once. Laid out the usual way, most of each
// 64-row wgmma and of each stage's A tile would hold rows that do not exist. So the small side becomes
// wgmma's N instead (swap_ab where it is M), rounded up to 8, 16 or 32, and shared
// memory holds stages of the large operand almost alone: 64-row tiles (one consumer warpgroup, as
// many units as the large side gives), 256 elements of K per stage (32 KiB of the large operand, half
// the barrier round trips of 128 for the same bytes in flight) and no cluster (a multicast of the
// small operand saves no bytes; 128-row tiles over two rounds or more are the exception below).
// Stream-K then cuts the units in step where they are few (cutSmallProblemsInStep). A problem so
// cut is a chain per piece of start-up, a few K tiles and one hand-over; where 256-deep pieces would
// leave SMs idle (1x1x100000: 97 pieces of 4 K tiles on 132 SMs), 128-deep tiles give more pieces,
// and more SMs each reading less shorten every chain more than deeper stages save. Measured against the tiles the other rules pick and against other K
// depths and stage counts: docs/results/narrow_tiles_h100.csv, held by
// tests/unit/tile_dataset_test.cpp. Over half a wgmma's rows the waste is under half, and 64-row
// tiles of C's orientation read the same bytes of the large operand as the narrow tile: the dataset's
// M = 48 runs within 1.3% either way, so M or N from 33 to 63 is left to those tiles.
bool narrowSideSm90(const MatmulProblem& problem) { return std::min(problem.m, problem.n) <= kWgmmaRows / 2; }

namespace {

// The whole units of a narrow problem in `rows`-row tiles as the kernel's split runs them without
// stream-K (planWorkSplit): `rounds` each on the first `busy` SMs, the rest idle.
struct NarrowRounds {
  int64_t units = 0, rounds = 0, busy = 0;
};
NarrowRounds narrowRounds(const MatmulProblem& problem, const DeviceSpec& device, int64_t rows, int64_t tile_k) {
  const int64_t units = ceilDiv(std::max(problem.m, problem.n), rows) * problem.batch;
  const WorkSplit w = planWorkSplit(units, device.sm_count, ceilDiv(problem.k, tile_k), false);
  return {w.dp_units, ceilDiv(w.dp_units, w.clusters), w.dp_stride};
}

// Reading the large operand bounds a narrow problem, and its rate grows with the SMs reading it. Where
// 128-row tiles (two consumer warpgroups, 64 KiB of the large operand a 256-deep stage) keep as many
// SMs busy as 64-row tiles while taking fewer rounds, each SM reads its share in fewer, longer runs,
// with fewer unit changes in its pipeline. Where they busy fewer SMs, the idle SMs' share of the
// bandwidth costs more than the longer runs save. Measured at M = 1, 8 and 16 (widths 8 and 16; width
// 32's 128-row stages would hold two stages only) on nine projection shapes, TN and NT, bf16:
// docs/results/narrow_rows_h100.csv, held by tests/unit/tile_dataset_test.cpp. 8-bit inputs reach this
// rule as the 16-bit problem moving the same bytes (eight_bit_inputs.h) and take the same tiles.
bool tallerNarrowTile(const NarrowRounds& short_rows, const NarrowRounds& tall_rows, int64_t width) {
  constexpr int64_t kWidestTall = 16;
  // Fewer rounds needs two rounds or more of 64-row tiles: over a wave, where no in-step cut is made.
  return width <= kWidestTall && tall_rows.rounds < short_rows.rounds && tall_rows.busy >= short_rows.busy;
}

// 128-row narrow tiles that take two rounds or more run in pairs. A pair's two CTAs read neighbouring
// blocks of the large operand's rows in step, each stage waiting for the small operand's half from
// the other; where every SM streams a single unit that lockstep buys nothing and the pairs only add
// their start-up, and over two rounds or more the paired runs were the faster on every measured
// projection. Measured on the projections of narrow_rows (alone and in pairs, 128 and 256 deep):
// docs/results/narrow_rows_h100.csv and narrow_rows_h200.csv, held by tests/unit/tile_dataset_test.cpp.
bool pairedNarrowTiles(const NarrowRounds& tall_rows) {
  constexpr int64_t kFewestPairedRounds = 2;
  return tall_rows.rounds >= kFewestPairedRounds;
}

}  // namespace

std::string setNarrowTileSm90(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p) {
  constexpr int64_t kDeepK = 256, kShallowK = 128;
  p.swap_ab = problem.m <= problem.n;
  const int64_t small = std::min(problem.m, problem.n);
  const int64_t units = ceilDiv(std::max(problem.m, problem.n), kWgmmaRows) * problem.batch;
  const auto busy = [&](int64_t tile_k) { return units * inStepPieces(units, device.sm_count, ceilDiv(problem.k, tile_k)); };
  const bool shallow = busy(kDeepK) > 0 && busy(kDeepK) < device.sm_count && busy(kShallowK) > busy(kDeepK);
  const int64_t tile_k = shallow ? kShallowK : kDeepK;
  // Widths of 8, 16 or 32: a power of two at least the small side, so that every M (or N) from 1 to
  // 32 takes one of three kernels (the small side's extra columns cost a little shared memory,
  // nothing in DRAM traffic).
  int64_t width = 8;
  while (width < small) width *= 2;
  const NarrowRounds short_rows = narrowRounds(problem, device, kWgmmaRows, tile_k),
                     tall_rows = narrowRounds(problem, device, 2 * kWgmmaRows, tile_k);
  const bool tall = tallerNarrowTile(short_rows, tall_rows, width);
  const bool paired = tall && pairedNarrowTiles(tall_rows);
  const int64_t rows = tall ? 2 * kWgmmaRows : kWgmmaRows;
  setSm90Tile(p, TileShape{rows, width, tile_k});
  p.cluster = ClusterShape{paired ? 2 : 1, 1};
  return fmt::format("narrowSideSm90: {} is {}, at most half a wgmma's {} rows: it is wgmma's N{}, {}-row tiles {} "
                     "deep, {}{}",
                     problem.m <= problem.n ? "M" : "N", small, kWgmmaRows, p.swap_ab ? " (C^T = B^T A^T)" : "", rows,
                     tile_k, paired ? "in pairs (two rounds or more)" : "alone",
                     shallow ? fmt::format(" ({} deep, cut in step, would busy {} of {} SMs; {} deep busies {})", kDeepK,
                                           busy(kDeepK), device.sm_count, kShallowK, busy(kShallowK))
                     : tall ? fmt::format(" (whole units: {} in {} round(s) on {} SMs, where 64-row tiles take {})",
                                          tall_rows.units, tall_rows.rounds, tall_rows.busy, short_rows.rounds)
                            : "");
}

// Four shapes of problem for which the rules above, fitted on problems of many tile rows and columns
// and thousands of K, choose too large a tile or a cluster: the first three spend most of their time
// on start-up and hand-over rather than streaming K tiles (docs/results/small_tiles_h100.csv, held by
// tests/unit/tile_dataset_test.cpp):
// - One tile cut in step into a piece per SM (128x128x65536 in a 128x128 tile): every SM hands a
//   partial sum of the whole tile to one finisher. Smaller tiles make several units of longer
//   pieces, each with a smaller partial sum. Which smaller tile is a matter of the bytes read through
//   L2: cut in step, the pieces stream their operands at about the rate L2 hands out lines, and
//   64x64 units read every row of A and B twice (A's rows for both tile columns, B's for both tile
//   rows). 64x128 tiles in pairs along M cover the whole tile per cluster, with B multicast, so each
//   byte leaves L2 once; but each CTA hands over twice the sum (32 KB) and a pair launches only where
//   two SMs are free. Pieces long enough to stream (kShortestPairedPieceKTiles of 128-deep K tiles)
//   take the pairs, shorter ones the 64x64 tiles 256 deep (docs/results/one_tile_cut_h200.csv).
// - At most 8 K tiles and at most a wave of 64x64 tiles (512^3, 32 batches of 128x128x64): every
//   CTA's loop is a few K tiles long, so its start-up is most of its time; 64x64 tiles alone give
//   the most CTAs, each starting at once (a cluster waits for both its CTAs to be placed).
// - Batched: pairs share B tiles across M, which saves L2 reads where many waves stream the same B;
//   batch entries are separate problems of a few waves at most, and run alone.
// - One column of tiles (N within one tile's width) over at least a wave of pairs: every CTA reads
//   the same B tile, which L2 holds once for all of them, and a pair's two CTAs wait for each other
//   at the start of every unit. That wait is a fixed cost per unit, which B's shared L2 lines do not
//   buy back (docs/results/small_problem_pairs_h100.csv).
std::optional<std::string> shortOrOneTileSm90(const MatmulProblem& problem, const DeviceSpec& device,
                                              MatmulParams& p) {
  constexpr int64_t kShortKTiles = 8;
  constexpr int64_t kDeepTileK = 256;
  // Pairs pay once a piece streams long enough for its halved L2 reads to outweigh its doubled sum;
  // the threshold lies between the piece lengths measured either way (one_tile_cut_h200.csv).
  constexpr int64_t kShortestPairedPieceKTiles = 5;
  const TileShape small{64, 64, 64};
  const int64_t units = ceilDiv(problem.m, p.cta_tile.m) * ceilDiv(problem.n, p.cta_tile.n) * problem.batch;
  const int64_t small_units = ceilDiv(problem.m, small.m) * ceilDiv(problem.n, small.n) * problem.batch;
  const bool one_tile_cut = units == 1 && std::min(problem.m, problem.n) >= kWgmmaRows &&
                            inStepPieces(1, device.sm_count, ceilDiv(problem.k, p.cta_tile.k)) >= 2;
  if (one_tile_cut) {
    // A pair of 64-row tiles holds the whole tile only where both have rows; the pair tile's width
    // holds N (the rule runs with N of 64 to 128).
    const TileShape pair_tile{kWgmmaRows, 128, 128};
    const int64_t pair_k_tiles = ceilDiv(problem.k, pair_tile.k);
    const int64_t pair_pieces = inStepPieces(1, device.sm_count / 2, pair_k_tiles);
    const int64_t piece_k_tiles = pair_pieces > 0 ? pair_k_tiles / pair_pieces : 0;
    const bool pair_fits = problem.m > kWgmmaRows && problem.n > kWgmmaRows && piece_k_tiles > 0;
    if (pair_fits && piece_k_tiles >= kShortestPairedPieceKTiles) {
      setSm90Tile(p, pair_tile);
      p.cluster = ClusterShape{2, 1};
      return fmt::format("shortOrOneTileSm90: one tile cut in step into a piece per SM: 64x128 tiles 128 deep in "
                         "pairs sharing B ({} pieces of {} K tiles or more: each byte leaves L2 once)",
                         pair_pieces, piece_k_tiles);
    }
    setSm90Tile(p, TileShape{small.m, small.n, kDeepTileK});
    p.cluster = ClusterShape{1, 1};
    return pair_fits
               ? fmt::format("shortOrOneTileSm90: one tile cut in step into a piece per SM: 64x64 tiles 256 deep, "
                             "alone (pairs' pieces would be {} K tiles, under {})",
                             piece_k_tiles, kShortestPairedPieceKTiles)
               : std::string("shortOrOneTileSm90: one tile cut in step into a piece per SM: 64x64 tiles 256 deep, alone");
  }
  if (ceilDiv(problem.k, small.k) <= kShortKTiles && small_units <= device.sm_count) {
    setSm90Tile(p, small);
    p.cluster = ClusterShape{1, 1};
    return "shortOrOneTileSm90: at most 8 K tiles and at most a wave of 64x64 tiles: 64x64, alone";
  }
  if (problem.batch > 1 && p.cluster.m * p.cluster.n > 1) {
    p.cluster = ClusterShape{1, 1};
    return "shortOrOneTileSm90: batched: alone";
  }
  if (ceilDiv(problem.n, p.cta_tile.n) == 1 && 2 * units >= device.sm_count && p.cluster.m * p.cluster.n > 1) {
    p.cluster = ClusterShape{1, 1};
    return "shortOrOneTileSm90: one tile column over at least a wave of pairs: alone";
  }
  return std::nullopt;
}

// sm_90: one consumer warpgroup of 64 rows per wgmma m64nNk16, the whole tile width each. Small
// problems: 128x128 when N is small, one consumer warpgroup when M is small. Otherwise the shape
// rankSm90Tiles picks, else chooseSmallTileSm90's.
std::string chooseTilesSm90(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p,
                            std::vector<Candidate>& ranked, std::optional<WidthRange>& widths) {
  setSm90Tile(p, problem.m <= 64 ? skinnyTile(problem, device) : TileShape{128, problem.n <= 128 ? 128 : 256, 64});
  p.cluster = pairedCluster(problem, p);
  if (!p.persistent) return "chooseTilesSm90: one CTA per tile: the default tile, pairs over two tile rows or more";
  std::optional<RankedTile> chosen;
  const std::vector<RankedTile> ranking = rankSm90TilesAsRead(problem, device, p.stream_k, p.swap_ab);
  for (const RankedTile& t : ranking) {
    if (t.chosen) chosen = t;
  }
  if (chosen) {
    for (const RankedTile& t : ranking) {
      ranked.push_back({fmt::format("{}x{}x{} in {}x1 clusters{}", t.cta.m, t.cta.n, t.cta.k, t.cluster_m,
                                    t.eligible() ? "" : " (not eligible: " + t.not_eligible + ")"),
                        t.score(), "score", modelledSm90Us(problem, device, t.score())});
    }
    setSm90Tile(p, chosen->cta, chosen->consumer_rows);
    p.cluster = ClusterShape{chosen->cluster_m, 1};
    return fmt::format("rankSm90Tiles: the best score of the ranking{}, {:.3f} ({:.2f} speed x {:.3f} useful x {:.3f} busy)",
                       bothOperandsAligned(problem) ? "" : " on the padded copies", chosen->score(), chosen->speed,
                       chosen->fit.useful, chosen->fit.busy);
  }
  if (auto rule = chooseSmallTileSm90(problem, device, p, widths)) return *rule;
  if (problem.m > 64) return "chooseSmallTileSm90: no small-problem rule applies: the default tile";
  return "skinnyTile: M is at most 64: 64 rows, the widest of 256, 128, 64 columns giving half the SMs a tile, 128 "
         "deep where 64 wide and K is 2048 or more";
}


}  // namespace tilegrid::scheduler
