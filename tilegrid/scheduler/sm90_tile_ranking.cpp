#include "tilegrid/scheduler/sm90_tile_ranking.h"

#include <fmt/format.h>

#include "tilegrid/scheduler/tile_eligibility.h"

namespace tilegrid::scheduler {

// The shapes ranked, each with its speed on full waves relative to the first: 192x160 with three
// consumers and no cluster runs at 0.96 of 128x256 with two and a 2x1 cluster (H100, TN, 6144^3
// and 8192^3, `tilegrid run --cta-tile` of each) but fills 4000^3 with 525 tiles, 3.98 waves of 132
// (128x256: 256 cluster units, 3.88 waves of 66, 95% real output): 771 vs 735 TFLOP/s. 128x232
// pairs run at 0.97 on exactly four waves (2816x5568 vs 2816x6144, `tilegrid run --cta-tile 128x232x64`) and fill
// 5000x3000 with 260 units, 3.94 waves, 97% real: 748 vs 719 TFLOP/s. The model is calibrated on
// problems of 2 to 16 waves, so under a whole wave of the first shape it ranks only 192x128, and
// only where its tiles fill 90-100% of one wave: 1536x2048x8192 738 vs 668 (128x256 pairs cut by
// stream-K), 1500x2000x4096 634 vs 528. Over several waves its speed varies with the shape (0.88
// to 0.96: 4500x2000x4096 652 vs 685), so it is not ranked there. The speeds were measured with
// 16-byte aligned rows throughout (TMA loads and stores, no padded copies); 4097x4097x4096 TN, whose
// C rows are not, ran 192x160 at 615 TFLOP/s and 128x256 at 645 (its epilogue stores 32-column
// slabs a row per warp). 192x192 alone (three 64x192 consumers, four stages with 64-byte epilogue
// slabs) ran at 1.02 on whole waves (2304x8448x4096: 826-830 vs 805-808 for 2816x6144 in 128x256
// pairs) but is ranked at 1.0: at 1.02 the model also took 2500x7000x4096, which lost (724 vs 736).
// It is ranked only where its last wave is at least 90% full, with K-major A: cut by stream-K it
// loses (2000x5000x4096: 594 vs 684), 6000x3000x4096 (3.88 waves) ran even, and an M-major A
// loses (3000x3000x4096 NN 591 vs 670, NT 511 vs 639). TN, new choice vs the old: 3000x3000x4096
// 729 vs 684, 1500x3000 702 vs 609, 4500x2000 749 vs 691, 4500x3000 732 vs 710, 7000x6000 798 vs
// 783. Where the lone 192x192 is not ranked (rows off 32-byte sectors, or M-major A), 192x192
// pairs are, under the same wave rule. They ran at 1.0 on whole waves of K = 4088 (760 vs 755-760)
// but are ranked at 0.97: at 1.0 the model also took problems of 5-9 waves that ran 0.2-0.7% slower
// (4000x8000x3000, 4500x5000x3000, 6000x7000x3000, 6500x5000x3000). Chosen now, vs the old choice:
// 3000^3 TN 633 vs 598, TT 630 vs 600, NN 637 vs 602, 3072x3072x4096 NN 760 vs 712, NT 764 vs 713,
// 4500x2000x3000 638 vs 601, 1500x6000x3000 647 vs 608, 1500x3000x5000 629 vs 593. Under a wave,
// 128x192 pairs where they fill one and 192x128 does not: 1000x3000x4096 588 vs 511 (128x256 pairs
// cut by stream-K), 1024x3072x4096 625 vs 533, TT 645 vs 542, 1000x3000x8192 681 vs 619; where
// both fill one, 192x128 ran faster (2048x1536x4096: 657 vs 634), hence 0.92 against its 0.95. A
// shape must beat the chosen one by 1% to replace it. 192x152 alone stores C rows of 304 bytes, so
// every other tile's rows start off 32-byte sectors: computing C it won on two and four waves
// (1500x5000x4096 748 vs 731, 3000x5000 767 vs 738) and lost on six to eight (4500x5000 742 vs 762,
// 6000x5000 740 vs 761); computing C^T its stores run along its 192 rows, on sectors (6000x5000 for
// the kernel: 787 vs 741 computing C), and it is ranked where its padded grid is at least 95% real
// (it lost at 3500x2000, 91%: 636 vs 689). The lone 192x192 is ranked for TN only: on a TT kernel
// (5200x5200 NN computing C^T) it ran 688 against 711 for 192x160. 256x152x32 pairs of two 128-row
// consumers (six stages; BK 64 leaves three) ran at 0.94 and fit problems of one or two waves none of
// the others fits: 2000x5000x4096 720 vs 680 for 128x256 pairs, 1200x4000 computing C^T 683 vs 596.
// It is ranked where 95% of its grid is real: computing C of 4500x1000 (92%) it lost, 562 vs 605.
// Computing C^T the same pairs take BK 64 and four stages (16-column epilogue slabs, stores still
// 128 bytes along m), 0.98 on at most four waves: 5000x3000 768 vs 752 for 192x152, 5000x2000 754
// vs 729 with BK 32, 600x7400 600 vs 520, 10000x2000 785 vs 755 and 5000x4000 781 vs 753 for
// 128x256 pairs. On more waves it ran at 0.93-1.0 (5000x7000 737 vs 752, 10000^3 757 vs 771).
// Computing C with BK 64 it needs 32-byte slabs for a fourth stage, and lost to BK 32 (714 vs 722).
// Computing C^T those tiles then ran faster alone than in pairs on every shape it is ranked for
// (5000x3000 775-778 vs 765-769, 10000x1000 760 vs 744, 1200x8000 745 vs 709, 600x8000 700 vs 628),
// so they are ranked alone. Alone, 600x7400's 116 tiles fill 88% of a wave (its pairs, over a padded
// 30th tile row, 91%); it ran 645 there against 592 in pairs and 503 for 192x160, so a last wave
// of 85% counts as full for it.
std::vector<RankedTile> rankSm90Tiles(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                      bool swapped) {
  enum class Where {
    Waves,         // any problem of at least a wave of the first shape
    OneWave,       // only under a wave of the first shape, where it fills 90-100% of one wave
    FullLastWave,  // at least a wave of the first shape, its own last wave 90-100% full
  };
  // Operand rows that do not start on 32-byte L2 sectors make every TMA box row touch one sector
  // more, which the shapes without multicast or with narrower B tiles feel most (TN on an H100:
  // 4000x4000x3000 ran 192x160 at 502 TFLOP/s and 128x232 pairs at 610, 128x256 pairs at 674;
  // 4000x4000x4008: 510 / 628 / 686).
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
                 {{128, 192, 64}, 2, 0.92, Where::OneWave, Rows::OnSectors},
                 {{192, 192, 64}, 1, 1.0, Where::FullLastWave, Rows::OnSectorsTN},
                 {{192, 192, 64}, 2, 0.97, Where::FullLastWave, Rows::Otherwise},
                 {{192, 152, 64}, 1, 0.97, Where::FullLastWave, Rows::OnSectors, Orientation::Straight, 0, 64, 4},
                 {{192, 152, 64}, 1, 0.97, Where::FullLastWave, Rows::OnSectors, Orientation::Swapped, 0.95},
                 {{256, 152, 32}, 2, 0.94, Where::FullLastWave, Rows::OnSectors, Orientation::Straight, 0.95, 128},
                 {{256, 152, 64}, 1, 0.98, Where::FullLastWave, Rows::OnSectors, Orientation::Swapped, 0.95, 128, 4, 0.85}};
  const bool aligned = allRowsAligned(problem);
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

std::optional<RankedTile> chosenSm90Tile(const MatmulProblem& problem, const DeviceSpec& device, bool stream_k,
                                         bool swapped) {
  for (const RankedTile& r : rankSm90Tiles(problem, device, stream_k, swapped)) {
    if (r.chosen) return r;
  }
  return std::nullopt;
}

// Computing C^T turns the problem's N into wgmma's M and its M into the tile width, which can fit the
// waves better: 3500x8000x4096 TN in 192x160 804 vs 764 TFLOP/s for 128x256 pairs computing C,
// 7000x4000 807 vs 766, 4000^3 TT 773-781 vs 743 (the kernel is NN, whose 160-wide B is K-major),
// 9000x2600 NT 728 vs 636, 1000x3000 615-618 vs 592. Where the shapes tie, the orientation does not
// matter: 4096^3 787 vs 786, 4000^3 777 vs 778.
// N of 64 or less under a larger M is bound by reading A; computing C^T puts wgmma's 64 rows along N
// and spreads A over as many SMs as skinnyTileWidth gives (TN, TFLOP/s, swapped vs 128x128 pairs):
// 4096x32x4096 47 vs 36, 8192x64x8192 144 vs 132, 11008x64x4096 125 vs 119, 14336x16x4096 34 vs 31.
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
