#include "tilegrid/scheduler/sm90_tile_ranking.h"

#include <fmt/format.h>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/operand_padding.h"
#include "tilegrid/scheduler/tile_eligibility.h"

namespace tilegrid::scheduler {

// The shapes ranked, each with its speed on full waves relative to the first (128x256 in 2x1
// clusters), and where each is ranked. A tile's score is its useful share of the padded grid times
// the busy share of its waves times that speed (fitWaves), so a shape that runs a little slower on
// full waves wins where it fills the last wave much better. The speeds come from whole-wave problems
// of each shape; where a shape is ranked comes from the problems where that trade went the wrong way:
// - The model is calibrated on problems of 2 to 16 waves. Under a wave of the first shape only tiles
//   that fill 90-100% of one wave are ranked (192x128 alone, 128x192 in pairs where 192x128 does not
//   fill one); over several waves their speed varies with the shape.
// - 192x192 alone and 192x152 store C rows of 384 and 304 bytes; stream-K cutting them, an M-major A
//   or rows off 32-byte sectors cost them more than the others, so they are ranked only where their
//   own last wave is nearly full, with the operands' rows on sectors (192x192 alone: TN only; in
//   pairs otherwise). A speed was set where the model, at the whole-wave figure, also took a problem
//   that then ran slower (192x192 alone at 1.0, in pairs at 0.97).
// - 192x152 computing C starts every other tile's C rows off sectors: it is ranked on at most four
//   waves; computing C^T its stores run along its 192 rows, on sectors, where 95% of its grid is real.
// - 256x152 (two 128-row consumers) fits problems of one or two waves that no other shape fills: in
//   pairs with BK 32 computing C, alone with BK 64 computing C^T (which ran faster alone than in
//   pairs), where 95% of the grid is real and an 85% full last wave counts as full.
// - A shape must beat the chosen one by 1% to replace it.
// The measured pairs behind these rules: docs/results/tile_ranking_pairs_h100.csv, held by
// tests/unit/tile_dataset_test.cpp (the ranking must never pick the slower of a decisive pair); the
// whole-wave speeds and the problems that set each limit: docs/findings.md (*The tile ranking's
// speeds and limits*).
double modelledSm90Us(const MatmulProblem& problem, const DeviceSpec& device, double score) {
  const double flops = 2.0 * static_cast<double>(problem.m) * static_cast<double>(problem.n) *
                       static_cast<double>(problem.k) * static_cast<double>(problem.batch);
  return flops / (score * kFullWaveTflopsPerSm * device.sm_count * 1e12) * 1e6;
}

std::vector<RankedTile> rankSm90Tiles(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                      bool swapped, bool operands_padded) {
  enum class Where {
    Waves,         // any problem of at least a wave of the first shape
    OneWave,       // only under a wave of the first shape, where it fills 90-100% of one wave
    FullLastWave,  // at least a wave of the first shape, its own last wave 90-100% full
  };
  // Operand rows that do not start on 32-byte L2 sectors make every TMA box row touch one sector
  // more, which the shapes without multicast or with narrower B tiles feel most (4000x4000x3000 and
  // 4000x4000x4008 in the pairs dataset). 128x192 pairs, filling one wave where 128x256 pairs fill
  // two thirds, keep their lead there: their multicast halves B's extra sectors
  // (docs/results/off_sector_tiles_h200.csv).
  enum class Rows {
    Any,
    OnSectors,         // A's and B's rows start on 32-byte sectors
    OnSectorsTN,       // and both are K-major
    Otherwise,         // rows off sectors, or an MN-major operand
  };
  // A width of 152 columns starts every other tile's C rows off 32-byte sectors, so the epilogue's
  // stores write partial sectors; computing C^T (swapped) stores along the tile's 192 rows instead.
  enum class Orientation {
    Either,
    Straight,  // C = A B
    Swapped,   // C^T = B^T A^T
  };
  static constexpr struct {
    TileShape cta;
    int64_t cluster_m;
    double speed;
    Where where;
    Rows rows;
    Orientation orientation = Orientation::Either;
    double min_useful = 0;  // the least share of its padded grid that must be real output
    int64_t consumer_rows = 64;
    double max_waves = 1e9;  // the most waves it is ranked on
    double full_last_wave = 0.9;  // the least share of its last wave that counts as full
  } kShapes[] = {{{128, 256, 64}, 2, 1.0, Where::Waves, Rows::Any},
                 {{192, 160, 64}, 1, 0.96, Where::Waves, Rows::OnSectors},
                 {{128, 232, 64}, 2, 0.97, Where::Waves, Rows::OnSectors},
                 {{192, 128, 64}, 1, 0.95, Where::OneWave, Rows::OnSectors},
                 {{128, 192, 64}, 2, 0.92, Where::OneWave, Rows::Any},
                 {{192, 192, 64}, 1, 1.0, Where::FullLastWave, Rows::OnSectorsTN},
                 {{192, 192, 64}, 2, 0.97, Where::FullLastWave, Rows::Otherwise},
                 {{192, 152, 64}, 1, 0.97, Where::FullLastWave, Rows::OnSectors, Orientation::Straight, 0, 64, 4},
                 {{192, 152, 64}, 1, 0.97, Where::FullLastWave, Rows::OnSectors, Orientation::Swapped, 0.95},
                 {{256, 152, 32}, 2, 0.94, Where::FullLastWave, Rows::OnSectors, Orientation::Straight, 0.95, 128},
                 {{256, 152, 64}, 1, 0.98, Where::FullLastWave, Rows::OnSectors, Orientation::Swapped, 0.95, 128, 4, 0.85}};
  // Operands read through padded copies rank with C's rows off 16 bytes too: the ranking's choice held
  // on such problems (docs/results/misaligned_tiles_h200.csv). Where only C's rows are off, the
  // default stays: 128x256 in pairs beat the ranking's 192x160 at 4097x4097x4096 TN (the pairs).
  TG_INTERNAL_CHECK(!operands_padded || bothOperandsAligned(problem))
      << "rankSm90Tiles: padded operands are described by their aligned copies";
  const bool aligned = allRowsAligned(problem) || operands_padded;
  const bool sector_rows = rowsOnSectors(problem);
  const bool tn = problem.layout == Layout::TN;
  if (!aligned || problem.m <= 64 || problem.n <= 128) return {};
  std::vector<RankedTile> ranked;
  for (const auto& shape : kShapes) {
    RankedTile r;
    r.cta = shape.cta;
    r.cluster_m = shape.cluster_m;
    r.consumer_rows = shape.consumer_rows;
    r.speed = shape.speed;
    r.fit = fitWaves(problem, shape.cta.m, shape.cta.n, shape.cta.k, shape.cluster_m, device.sm_count / shape.cluster_m,
                     stream_k);
    ranked.push_back(r);
  }
  const bool under_a_wave = ranked.front().fit.waves < 1;
  for (size_t i = 1; i < ranked.size(); ++i) {
    RankedTile& r = ranked[i];
    const bool last_wave_full = r.fit.lastWave() >= kShapes[i].full_last_wave;
    const bool fills_one_wave = r.fit.waves <= 1 && last_wave_full;
    const Where where = kShapes[i].where;
    const Rows rows = kShapes[i].rows;
    const Orientation orientation = kShapes[i].orientation;
    if (orientation == Orientation::Straight && swapped) {
      r.not_eligible = "ranked only for C = A B (not C^T)";
    } else if (orientation == Orientation::Swapped && !swapped) {
      r.not_eligible = "ranked only for C^T = B^T A^T";
    } else if (r.fit.waves > kShapes[i].max_waves) {
      r.not_eligible = fmt::format("ranked only on at most {} waves", kShapes[i].max_waves);
    } else if (r.fit.useful < kShapes[i].min_useful) {
      r.not_eligible = fmt::format("ranked only where at least {:.0f}% of its padded grid is real output",
                                   kShapes[i].min_useful * 100);
    } else if (!widestAtoms(problem, r.cta)) {
      r.not_eligible = "an MN-major operand tile would get narrower swizzle atoms";
    } else if (rows == Rows::OnSectors && !sector_rows) {
      r.not_eligible = "ranked only where A's and B's rows start on 32-byte sectors";
    } else if (rows == Rows::OnSectorsTN && !(sector_rows && tn)) {
      r.not_eligible = "ranked only for TN with rows on 32-byte sectors";
    } else if (rows == Rows::Otherwise && sector_rows && tn) {
      r.not_eligible = "ranked only with an MN-major operand or rows off 32-byte sectors";
    } else if (where == Where::OneWave && !(under_a_wave && fills_one_wave)) {
      r.not_eligible = "ranked only where the first shape fills less than a wave and it fills 90-100% of one";
    } else if (where != Where::OneWave && under_a_wave) {
      r.not_eligible = "the first shape fills less than a wave";
    } else if (where == Where::FullLastWave && !last_wave_full) {
      r.not_eligible =
          fmt::format("ranked only where its last wave is {:.0f}-100% full", kShapes[i].full_last_wave * 100);
    }
  }
  size_t chosen = 0;
  for (size_t i = 1; i < ranked.size(); ++i) {
    if (ranked[i].eligible() && ranked[i].score() > 1.01 * ranked[chosen].score()) chosen = i;
  }
  // Under a wave with no shape that fills one, the heuristic keeps its default and shows no ranking.
  if (under_a_wave && chosen == 0) return {};
  ranked[chosen].chosen = true;
  return ranked;
}

std::vector<RankedTile> rankSm90TilesAsRead(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                            bool swapped) {
  return rankSm90Tiles(readThroughPadding(problem), device, stream_k, swapped, !bothOperandsAligned(problem));
}

std::optional<RankedTile> chosenSm90Tile(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                         bool swapped) {
  for (const RankedTile& r : rankSm90Tiles(problem, device, stream_k, swapped)) {
    if (r.chosen) return r;
  }
  return std::nullopt;
}

// Computing C^T turns the problem's N into wgmma's M and its M into the tile width, which can fit the
// waves better (3500x8000x4096 in the pairs dataset); where the two orientations' best shapes tie,
// the orientation does not matter, so it turns only past a margin. N of 64 or less under a larger M
// is bound by reading A; computing C^T puts wgmma's 64 rows along N and spreads A over as many SMs
// as skinnyTileWidth gives. Figures: docs/findings.md (*The tile ranking's speeds and limits*).
OrientationRanking rankOrientations(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k) {
  OrientationRanking r;
  r.straight = chosenSm90Tile(problem, device, stream_k, false);
  r.swapped = chosenSm90Tile(swapOperands(problem), device, stream_k, true);
  r.narrow_n = problem.n <= 64 && problem.m > 64;
  r.swap = r.narrow_n ||
           (r.straight && r.swapped && r.swapped->score() > OrientationRanking::kMargin * r.straight->score());
  return r;
}

}  // namespace tilegrid::scheduler
