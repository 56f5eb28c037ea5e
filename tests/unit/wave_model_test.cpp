// The wave model (units, padding, idle slots) and the sm_90 tile choices it and the small-problem
// rules drive, over named problems with the measurements behind each expectation.
#include <gtest/gtest.h>

#include "tilegrid/scheduler/schedule.h"
#include "tilegrid/scheduler/wave_model.h"
#include "tilegrid/scheduler/work_split.h"
#include "support/problems.h"

namespace tilegrid::scheduler {
namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k, Layout layout = Layout::TN) {
  return testing::bf16Problem(m, n, k, layout);
}

// The wave model's defining properties over a small domain of problems and tiles, and the sm_90
// tile choice it drives.
TEST(WaveModel, CountsUnitsPaddingAndIdleSlotsExactly) {
  for (int64_t m : {1, 64, 100, 129, 1000}) {
    for (int64_t n : {1, 160, 257, 999}) {
      for (int64_t cluster : {1, 2}) {
        for (int64_t slots : {1, 3, 7}) {
          for (bool stream_k : {false, true}) {
            const MatmulProblem p = problem(m, n, 4096);
            const WaveFit fit = fitWaves(p, 64, 160, 64, cluster, slots, stream_k);
            const int64_t units = ceilDiv(ceilDiv(m, 64), cluster) * ceilDiv(n, 160);
            EXPECT_EQ(fit.units, units);
            EXPECT_DOUBLE_EQ(fit.useful, static_cast<double>(m * n) / static_cast<double>(units * cluster * 64 * 160));
            EXPECT_GT(fit.useful, 0);
            EXPECT_LE(fit.useful, 1);
            const int64_t whole = units / slots, rem = units % slots;
            if (rem == 0) {
              EXPECT_EQ(fit.busy, 1);
            } else if (stream_k && planWorkSplit(units, slots, 64, true).sharedUnits() > 0) {
              // Stream-K shares the last wave exactly where the kernel's split cuts it.
              EXPECT_DOUBLE_EQ(fit.busy, fit.waves / (fit.waves + 0.26));
            } else {
              // Without stream-K the last wave takes as long as a full one.
              EXPECT_DOUBLE_EQ(fit.busy, static_cast<double>(units) / static_cast<double>((whole + 1) * slots));
            }
            EXPECT_LE(fit.busy, 1);
            EXPECT_DOUBLE_EQ(fit.score(), fit.useful * fit.busy);
            // The last wave holds the units past the whole ones, or a whole wave of them.
            const int64_t in_last = units % slots == 0 ? slots : units % slots;
            EXPECT_NEAR(fit.lastWave(), static_cast<double>(in_last) / static_cast<double>(slots), 1e-9);
          }
        }
      }
    }
  }
}

TEST(WaveModel, PicksTheShapeThatFillsTheWavesBest) {
  // H100 preset, 132 SMs. 4000^3: 128x256 pairs give 256 units, 3.88 waves of 66, 95% real output;
  // 192x160 gives 525 tiles, 3.98 waves of 132, 99% real. Measured 735 vs 771 TFLOP/s (TN).
  const DeviceSpec h100 = DeviceSpec::preset("sm_90");
  struct Expect {
    int64_t m, n, k;
    Layout layout;
    TileShape cta;
    int64_t cluster_m;
    bool swap_ab = false;  // computes C^T = B^T A^T
    int64_t consumer_rows = 64;
  };
  // 5000x3000: 128x232 pairs give 260 units, 3.94 waves, 97% real (128x256: 3.64 waves cut by
  // stream-K). Measured 748 vs 719 TFLOP/s (TN).
  const TileShape wide{128, 256, 64}, three{192, 160, 64}, pairs232{128, 232, 64}, one_wave{192, 128, 64},
      square{192, 192, 64}, pairs192{128, 192, 64}, fitted{192, 152, 64}, tall{256, 152, 32}, tall64{256, 152, 64};
  for (const Expect& e : {Expect{4000, 4000, 4000, Layout::TN, three, 1}, Expect{4000, 4000, 8000, Layout::NN, three, 1},
                          // 160 columns of M-major B would get 64-byte atoms; computing C^T the
                          // kernel is NN and its 160 columns K-major (773-781 vs 743 TFLOP/s).
                          Expect{4000, 4000, 4000, Layout::TT, three, 1, true}, Expect{4000, 4000, 4000, Layout::NT, wide, 2},
                          Expect{4096, 4096, 4096, Layout::TN, wide, 2}, Expect{8192, 8192, 8192, Layout::TN, wide, 2},
                          // 192x152 computing C at 3000x5000 (767 vs 738) and 1500x5000 (2 waves; 748
                          // vs 731).
                          Expect{3000, 5000, 4096, Layout::TN, fitted, 1},
                          Expect{1500, 5000, 4096, Layout::TN, fitted, 1},
                          // Computing C^T where that fits the waves better (TFLOP/s vs computing C):
                          // 3500x8000 804 vs 764, 7000x4000 807 vs 766, 5000x6000 790 vs 768 (192x152
                          // over 8 waves), 1800x4200 756 vs 620, 9000x2600 NT 728 vs 636, 4200x9000 TT
                          // 772 vs 733.
                          Expect{3500, 8000, 4096, Layout::TN, three, 1, true}, Expect{7000, 4000, 4096, Layout::TN, three, 1, true},
                          Expect{5000, 6000, 4096, Layout::TN, fitted, 1, true}, Expect{1800, 4200, 4096, Layout::TN, fitted, 1, true},
                          Expect{9000, 2600, 4096, Layout::NT, square, 2, true}, Expect{4200, 9000, 4096, Layout::TT, square, 2, true},
                          // Not where it lost: 192x152 computing C over 6 to 8 waves (4500x5000 742 vs
                          // 762, 6000x5000 740 vs 761, 5500x4000 732 vs 756); computing C^T with 91-94%
                          // of the padded grid real (3500x2000 636 vs 689, 3500x3000 687 vs 691); lone
                          // 192x192 on a TT kernel (5200x5200 NN computing C^T: 688 vs 711).
                          Expect{4500, 5000, 4096, Layout::TN, pairs232, 2}, Expect{6000, 5000, 4096, Layout::TN, wide, 2},
                          Expect{5500, 4000, 4096, Layout::TN, wide, 2}, Expect{3500, 2000, 4096, Layout::TN, pairs232, 2},
                          Expect{3500, 3000, 4096, Layout::TN, wide, 2}, Expect{5200, 5200, 4096, Layout::NN, three, 1},
                          // M-major A with 3000-element rows: off 32-byte sectors.
                          Expect{3000, 5000, 4096, Layout::NN, wide, 2},
                          // 232 columns of M-major B would get 16-byte atoms.
                          Expect{5000, 3000, 4096, Layout::NT, wide, 2},
                          // Less than a wave, or rows not 16-byte aligned: the model is not
                          // calibrated there. Under half a wave of 128x256 pairs, 128x128 (512x4096x4096:
                          // 503 vs 396 TFLOP/s); under half a wave of those, 64x128 pairs (1000^3: 163
                          // vs 119, 128x4096x4096 166 vs 152), alone where they fill 80% of the SMs
                          // over at most 8 tile columns with rows on 32-byte sectors (1024x1024x4096
                          // 445 vs 330, 1000x1000x1024 219 vs 177 in pairs; 85%: 1750x500x4096 336-342
                          // vs 288-291, 1792x512x4096 NN 389-391 vs 335-337; 73%: 1500x500x4096 pairs,
                          // 243-244 vs 235-236; 1000^3, rows of 2000 bytes: pairs, 159 vs 150;
                          // 512x2048x4096, 16 columns: pairs, 360 vs 320; 640x1344x4096, 11 columns:
                          // pairs, 306-312 vs 247-249).
                          Expect{512, 4096, 4096, Layout::TN, TileShape{128, 128, 64}, 2},
                          Expect{1000, 1000, 1000, Layout::TN, TileShape{64, 128, 64}, 2},
                          Expect{1000, 1000, 1024, Layout::TN, TileShape{64, 128, 64}, 1},
                          Expect{1000, 1000, 2000, Layout::NT, TileShape{64, 128, 64}, 2},
                          Expect{1024, 1024, 4096, Layout::TN, TileShape{64, 128, 64}, 1},
                          Expect{512, 2048, 4096, Layout::TN, TileShape{64, 128, 64}, 2},
                          Expect{768, 1024, 4096, Layout::TN, TileShape{64, 128, 64}, 2},
                          Expect{1750, 500, 4096, Layout::TN, TileShape{64, 128, 64}, 1},
                          Expect{1792, 512, 4096, Layout::NN, TileShape{64, 128, 64}, 1},
                          Expect{1500, 500, 4096, Layout::TN, TileShape{64, 128, 64}, 2},
                          Expect{640, 1344, 4096, Layout::TN, TileShape{64, 128, 64}, 2},
                          Expect{128, 4096, 4096, Layout::TN, TileShape{64, 128, 64}, 2},
                          // K from 16384: 128x128 pairs (1024x1024x16384: 559 vs 457 for 64x128).
                          Expect{1024, 1024, 16384, Layout::TN, TileShape{128, 128, 64}, 2},
                          // 128x256 pairs where stream-K's in-step pieces span 128 K tiles
                          // (1024x1024x32768: 4 pieces, 665 vs 615), not 64 (512x1024x32768: 8
                          // pieces, 521 vs 477 for 128x128 pairs); but where 128-row tiles fill one
                          // wave, those (1024x2048x16384: 8 x 16 of 128x128, 718 vs 708).
                          Expect{1024, 1024, 32768, Layout::TN, wide, 2},
                          Expect{1024, 2048, 16384, Layout::TN, TileShape{128, 128, 64}, 1},
                          Expect{512, 1024, 32768, Layout::TN, TileShape{128, 128, 64}, 2},
                          // 128x128 alone over at least 8 tile rows and at most 1.1 waves
                          // (2048x1024x4096: 598 vs 529 in pairs, 1024x2048x4096 569 vs 556, 1280^3
                          // 316 vs 298); in pairs over 4 rows (512x4096x4096 above: 500 vs 489).
                          // Where 128-row tiles of another width fill one wave with less padding,
                          // those (1280^3 in 128x112: 10 x 12 tiles; 1280x1280x1024 300 vs 280).
                          Expect{2048, 1024, 4096, Layout::TN, TileShape{128, 128, 64}, 1},
                          Expect{4096, 512, 8192, Layout::TN, TileShape{128, 128, 64}, 1},
                          Expect{1024, 2048, 4096, Layout::TN, TileShape{128, 128, 64}, 1},
                          Expect{1280, 1280, 1280, Layout::TN, TileShape{128, 112, 64}, 1},
                          // 128x128 alone instead of 128x256 alone filling under 2/3 of the SMs
                          // (1536^3, 72 tiles: 376 vs 332), not over 74% (1792^3: 435 vs 464);
                          // then fitted to one wave, 12 x 11 tiles of 128x144 (451 vs 372), but
                          // not with MN-major operands (NT: 316 vs 563). 1792^3 fits 14 x 9 tiles
                          // of 128x200 (520 vs 468 for 128x256).
                          Expect{1536, 1536, 1536, Layout::TN, TileShape{128, 144, 64}, 1},
                          Expect{1536, 1536, 4096, Layout::NT, TileShape{128, 128, 64}, 1},
                          Expect{1792, 1792, 1792, Layout::TN, TileShape{128, 200, 64}, 1},
                          Expect{1792, 1792, 4096, Layout::NT, wide, 1},
                          // Under 2/3 of the SMs where 128x128 does not fit, 128x256 pairs (700x2800x8192
                          // before the fit: 570 vs 502 alone), as at 768x3072x4096 NT, where no
                          // fitted width keeps B's 128-byte atoms; fitted where one does
                          // (700x2800x8192 TN computing C^T in 22 x 6 of 128x120: 642 vs 563);
                          // 128x128 in pairs with rows off 32-byte sectors (2000x1000x3000: 372 vs
                          // 319; on them, 1280x1536x4096 alone: 560 vs 524).
                          Expect{768, 3072, 4096, Layout::NT, wide, 2},
                          Expect{700, 2800, 8192, Layout::TN, TileShape{128, 120, 64}, 1, true},
                          Expect{2000, 1000, 3000, Layout::TN, TileShape{128, 128, 64}, 2},
                          Expect{1280, 1536, 4096, Layout::TN, TileShape{128, 128, 64}, 1},
                          // N of 128 or less: 64x128 pairs where 128x128 tiles are at most half the SMs
                          // (4096x128x4096: 166 vs 147). M of 64: the widest tile whose tiles give half
                          // the SMs one. M or N of 32 or less: the small side is wgmma's N, in 64-row
                          // tiles 256 deep (narrow_tiles_h100.csv); 128-row tiles at widths 8 and 16
                          // where they take fewer rounds on as many SMs (narrow_rows_h100.csv: 28672
                          // rows, 2 rounds on 112 SMs against 4, in pairs; 57344, 112 against 128, stay).
                          Expect{4096, 128, 4096, Layout::TN, TileShape{64, 128, 64}, 2},
                          // Long K: 64x128 pairs where 128x128 units would be cut into 12 in-step
                          // pieces or more (256x256x32768: 33; 384x384x32768 alone: 14), else 128x128
                          // (256x768x16384: 11) (cut_pieces_h100.csv). Over at most four tile rows,
                          // one cluster spans them all (cut_fours_h200.csv: 256 and 192 rows).
                          Expect{256, 256, 32768, Layout::TN, TileShape{64, 128, 64}, 4},
                          Expect{192, 192, 65536, Layout::NT, TileShape{64, 128, 64}, 4},
                          Expect{384, 384, 32768, Layout::NT, TileShape{64, 128, 64}, 2},
                          Expect{256, 768, 16384, Layout::TN, TileShape{128, 128, 64}, 2},
                          Expect{32, 4096, 4096, Layout::TN, TileShape{64, 32, 256}, 1, true},
                          Expect{64, 11008, 4096, Layout::TN, TileShape{64, 128, 64}, 1},
                          Expect{8, 28672, 4096, Layout::TT, TileShape{128, 8, 256}, 2, true},
                          Expect{8, 57344, 8192, Layout::TT, TileShape{64, 8, 256}, 1, true},
                          Expect{4096, 32, 4096, Layout::TN, TileShape{64, 32, 256}, 1},
                          Expect{32, 28672, 4096, Layout::TN, TileShape{64, 32, 256}, 1, true},
                          Expect{14336, 16, 4096, Layout::NT, TileShape{128, 16, 256}, 1},
                          // Alone over an odd number of tile rows (896x2048x4096: 510 vs 434 in pairs),
                          // then fitted to one wave computing C^T: 16 x 8 tiles of 128x112 (546 vs
                          // 507), 640x2560x8192 20 x 6 (562 vs 457). Not with K = 4097 (rows off
                          // 16-byte boundaries).
                          Expect{896, 2048, 4096, Layout::TN, TileShape{128, 112, 64}, 1, true},
                          Expect{640, 2560, 8192, Layout::TN, TileShape{128, 112, 64}, 1, true},
                          Expect{640, 2560, 4097, Layout::TN, TileShape{128, 128, 64}, 1}, Expect{4097, 4097, 4096, Layout::TN, wide, 2},
                          Expect{4004, 4004, 4000, Layout::TN, wide, 2},
                          // Rows of A and B off 32-byte sectors (K = 3000, 4008): 192x160 ran at
                          // 0.74 of 128x256 pairs there.
                          Expect{4000, 4000, 3000, Layout::TN, wide, 2}, Expect{4000, 4000, 4008, Layout::TN, wide, 2},
                          Expect{5000, 3000, 4104, Layout::TN, wide, 2}, Expect{4000, 4000, 4016, Layout::TN, three, 1},
                          // Under a wave of 128x256 pairs, 192x128 where its tiles fill one wave
                          // (1536x2048: 128 of 132; measured 738 vs 668 TFLOP/s), else 128x192 pairs
                          // where they fill one (1000x3000 computing C: 64 of 66 units; 588 vs 511);
                          // neither where none fills one (2048x2048: 128x256 alone, whose 128 tiles
                          // fit the SMs at once; 730 vs 710 in pairs). Computing C^T, 1000x3000 is
                          // 3000x1000 for the kernel, which 192x128 fills (128 tiles; 615-618 vs 592).
                          Expect{1536, 2048, 8192, Layout::TN, one_wave, 1}, Expect{1500, 2000, 4096, Layout::TN, one_wave, 1},
                          Expect{1000, 3000, 4096, Layout::TN, one_wave, 1, true}, Expect{2048, 2048, 4096, Layout::TN, wide, 1},
                          // Both fill one wave at 2048x1536: 192x128 ran faster (657 vs 634).
                          Expect{2048, 1536, 4096, Layout::TN, one_wave, 1},
                          // 192x192 where its last wave is 90-100% full, with K-major A: 3000x3000
                          // (256 tiles, 1.94 waves; 729 vs 684 TFLOP/s), 4500x2000 (264, 2.00; 749
                          // vs 691). Alone not with M-major A (3000^2 NN 591 vs 670), nor where stream-K would cut
                          // it (2000x5000: 297 tiles, 2.25 waves; 594 vs 684) or its last wave is 88%
                          // full (6000x3000, even), nor at 2500x7000 (3.92 waves, 91% real; 724 vs 736).
                          Expect{3000, 3000, 4096, Layout::TN, square, 1}, Expect{4500, 2000, 4096, Layout::TN, square, 1},
                          Expect{1500, 3000, 4096, Layout::TN, square, 1},
                          // Where the lone 192x192 is not ranked (rows off sectors, or M-major A),
                          // 192x192 pairs under the same rule: 3000^3 TN 633 vs 598, NN 637 vs 602.
                          Expect{3000, 3000, 3000, Layout::TN, square, 2}, Expect{3000, 3000, 3000, Layout::NN, square, 2},
                          Expect{3072, 3072, 4096, Layout::NN, square, 2}, Expect{4500, 2000, 3000, Layout::TN, square, 2},
                          // 256x152x32 pairs of two 128-row consumers where their last wave is 90-100%
                          // full and 95% of their padded grid real (TFLOP/s vs the previous choice):
                          // 2000x5000 TN 720-722 vs 678-682, NN 721-725 vs 679-681, 1000x5000 689-695
                          // vs 603, 1000x4600 648-654 vs 611-613, 2000x2400 674-678 vs 606-609,
                          // 4000x1200 670-672 vs 598-600, 5600x1800 735-740 vs 696. Computing C^T the
                          // same pairs take BK 64 and four stages, on at most four waves: 5000x3000
                          // (3000x5000 for the kernel, 198 units, 3 waves) 764-770 vs 750-755 for
                          // 192x152, 5000x2000 753-755 vs 728-732 with BK 32, TT 750-752 vs 730-731,
                          // 5000x1000 704-707 vs 685-686, 1200x4000 700-701 vs 682, 600x7400 599-600 vs
                          // 508-522, 4500x1000 653-656 vs 641-642 (computing C, with 92% of its grid
                          // real, it lost: 557-568 vs 605); 10000x2000 784-786 vs 755 and 5000x4000
                          // 781 vs 751-755 for 128x256 pairs, 9500x1000 706 vs 640-684 with BK 32.
                          // Those C^T tiles then ran faster alone than in pairs, so they are ranked
                          // alone, and count a last wave of 85% as full (600x7400: 116 tiles, 88%):
                          // 5000x3000 775-778 vs 765-769, 600x7400 643-647 vs 590-595 (192x160 alone
                          // 501-505), 600x8000 698-701 vs 628, 1200x8000 743-746 vs 708-710,
                          // 10000x1000 760 vs 743-745, 5000x2000 772-774 vs 756-759.
                          Expect{2000, 5000, 4096, Layout::TN, tall, 2, false, 128}, Expect{2000, 5000, 4096, Layout::NN, tall, 2, false, 128},
                          Expect{1000, 5000, 4096, Layout::TN, tall, 2, false, 128}, Expect{1000, 4600, 4096, Layout::TN, tall, 2, false, 128},
                          Expect{2000, 2400, 4096, Layout::TN, tall, 2, false, 128}, Expect{4000, 1200, 4096, Layout::TN, tall, 2, false, 128},
                          Expect{5600, 1800, 4096, Layout::TN, tall, 2, false, 128}, Expect{5000, 3000, 4096, Layout::TN, tall64, 1, true, 128},
                          Expect{5000, 2000, 4096, Layout::TN, tall64, 1, true, 128}, Expect{5000, 2000, 4096, Layout::TT, tall64, 1, true, 128},
                          Expect{5000, 1000, 4096, Layout::TN, tall64, 1, true, 128}, Expect{1200, 4000, 4096, Layout::TN, tall64, 1, true, 128},
                          Expect{600, 7400, 4096, Layout::TN, tall64, 1, true, 128}, Expect{4500, 1000, 4096, Layout::TN, tall64, 1, true, 128},
                          Expect{10000, 2000, 4096, Layout::TN, tall64, 1, true, 128}, Expect{5000, 4000, 4096, Layout::TN, tall64, 1, true, 128},
                          Expect{9500, 1000, 4096, Layout::TN, tall64, 1, true, 128},
                          // Over more waves it ran at 0.93-1.0 of its speed on four: not ranked there
                          // (5000x7000: 7 waves, 735-739 vs 751-752 for 128x256 pairs; 10000^2: 20
                          // waves, 757 vs 771).
                          Expect{5000, 7000, 4096, Layout::TN, wide, 2}, Expect{10000, 10000, 4096, Layout::TN, wide, 2}}) {
    const MatmulParams p = chooseParams(problem(e.m, e.n, e.k, e.layout), h100);
    const std::string what = std::to_string(e.m) + "x" + std::to_string(e.n) + "x" + std::to_string(e.k) + " " +
                             toString(e.layout);
    EXPECT_EQ(p.cta_tile, e.cta) << what;
    EXPECT_EQ(p.cluster.m, e.cluster_m) << what;
    EXPECT_EQ(p.mathGroups(), e.cta.m / e.consumer_rows) << what;
    EXPECT_EQ(p.swap_ab, e.swap_ab) << what;
  }
  for (const Expect& e : {Expect{2000, 5000, 4096, Layout::TN, square, 1},
                          Expect{6000, 3000, 4096, Layout::TN, square, 1}, Expect{2500, 7000, 4096, Layout::TN, square, 1},
                          // Pairs over many waves ran 0.2-0.7% slower (7.0 and 6.95 waves here).
                          Expect{4000, 8000, 3000, Layout::TN, square, 2}, Expect{6500, 5000, 3000, Layout::TN, square, 2}}) {
    EXPECT_NE(chooseParams(problem(e.m, e.n, e.k, e.layout), h100).cta_tile, square)
        << e.m << "x" << e.n << "x" << e.k << " " << toString(e.layout);
  }
  EXPECT_EQ(chooseParams(problem(1000, 3000, 4096), h100, {.swap_ab = false}).cta_tile, pairs192);
  // One CTA per tile: no persistent waves to fill, the default tile. A user's tile pairs CTAs by the
  // usual rule, and a user's cluster wins.
  EXPECT_EQ(chooseParams(problem(4000, 4000, 4000), h100, {.persistent = false}).cta_tile, wide);
  const MatmulParams user = chooseParams(problem(4000, 4000, 4000), h100, {.cta_tile = three});
  EXPECT_EQ(user.cluster.m, 2);
  EXPECT_EQ(chooseParams(problem(4000, 4000, 4000), h100, {.cluster_m = 2}).cluster.m, 2);
}

}  // namespace
}  // namespace tilegrid::scheduler
