// The persistent kernels' work split: planned by the scheduler (tilegrid/scheduler/work_split.h), walked by
// the kernel's own code (tilegrid/codegen/device/work_split.cuh), run here on the CPU. For every grid of small
// sizes and for random large ones, the pieces the clusters walk cover each (unit, K tile) exactly
// once, the kernel's walk is the scheduler's description of it, and the stream-K hand-over the
// kernels rely on holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include <random>

#include "tilegrid/codegen/device/work_split.cuh"
#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/scheduler/work_split.h"

namespace {

using tilegrid::scheduler::kHandOverKTiles;
using tilegrid::scheduler::planWorkSplit;
using tilegrid::scheduler::WorkSplit;

// Cluster c's view of the split the host plans and passes to the kernel.
tg_work_split kernelView(int units, int clusters, int c, int k_tiles, bool stream_k) {
  return tg_split_for_cluster(tilegrid::codegen::kernelSplit(planWorkSplit(units, clusters, k_tiles, stream_k)), c);
}

struct Piece {
  int cluster, item, unit, k_begin, k_end;
};

std::vector<Piece> walk(int units, int clusters, int k_tiles, bool stream_k) {
  std::vector<Piece> pieces;
  for (int c = 0; c < clusters; ++c) {
    const tg_work_split w = kernelView(units, clusters, c, k_tiles, stream_k);
    int unit = 0, k_begin = 0, k_end = 0;
    for (int item = 0; tg_work_item(w, k_tiles, item, unit, k_begin, k_end); ++item) {
      pieces.push_back({c, item, unit, k_begin, k_end});
    }
  }
  return pieces;
}

TEST(WorkSplit, PiecesCoverEveryKTileOfEveryUnitOnce) {
  for (bool stream_k : {false, true}) {
    for (int clusters = 1; clusters <= 20; ++clusters) {
      for (int units = 1; units <= 3 * clusters + 2; ++units) {
        for (int k_tiles : {1, 2, 3, 5, 8, 13}) {
          std::vector<int> covered(static_cast<size_t>(units * k_tiles), 0);
          for (const Piece& p : walk(units, clusters, k_tiles, stream_k)) {
            ASSERT_TRUE(p.unit >= 0 && p.unit < units && p.k_begin >= 0 && p.k_begin < p.k_end && p.k_end <= k_tiles)
                << units << " units on " << clusters << " clusters, unit " << p.unit << " [" << p.k_begin << ", "
                << p.k_end << ")";
            for (int k = p.k_begin; k < p.k_end; ++k) ++covered[static_cast<size_t>(p.unit * k_tiles + k)];
          }
          for (size_t i = 0; i < covered.size(); ++i) {
            ASSERT_EQ(covered[i], 1) << units << " units, " << clusters << " clusters, " << k_tiles
                                     << " k tiles: unit " << i / k_tiles << " k " << i % k_tiles;
          }
        }
      }
    }
  }
}

// A cut unit is finished by the cluster holding its last K tile, after the partial sums of exactly
// the clusters tg_first_sharer names. Each of those hands over only that piece (its partial-sum slot
// is used once) and reaches it first, before any piece it finishes.
TEST(WorkSplit, EachCutUnitHasOneFinisherAndItsSharersAreTheOthers) {
  int cut_units = 0;
  for (int clusters = 1; clusters <= 20; ++clusters) {
    for (int units = 1; units <= 3 * clusters + 2; ++units) {
      for (int k_tiles : {1, 2, 4, 7, 16, 64}) {
        const auto pieces = walk(units, clusters, k_tiles, true);
        std::map<int, std::vector<Piece>> by_unit;
        std::map<int, int> handed_over;  // cluster -> pieces it hands over
        for (const Piece& p : pieces) {
          by_unit[p.unit].push_back(p);
          if (p.k_end < k_tiles) {
            ++handed_over[p.cluster];
            EXPECT_EQ(p.item, kernelView(units, clusters, p.cluster, k_tiles, true).dp_items)
                << "a hand-over piece is not its cluster's first stream-K piece";
          }
        }
        for (const auto& [c, n] : handed_over) EXPECT_EQ(n, 1) << "cluster " << c << " hands over " << n << " sums";
        for (const auto& [unit, parts] : by_unit) {
          if (parts.size() == 1) continue;
          ++cut_units;
          // From half a wave up, a unit is cut at most three ways; a smaller problem among as many
          // clusters as its K tiles span at every cluster's share.
          const int share = kernelView(units, clusters, 0, k_tiles, true).sk_share;
          const size_t most = 2 * units >= clusters ? 3u : static_cast<size_t>((k_tiles + share - 1) / share + 1);
          ASSERT_LE(parts.size(), most) << units << " units on " << clusters << " clusters: unit " << unit << " cut "
                                        << parts.size() << " ways";
          // walk() lists clusters in order, so the parts run from the first K tile to the last.
          const Piece& last = parts.back();
          ASSERT_EQ(last.k_end, k_tiles);
          ASSERT_EQ(parts.front().k_begin, 0);
          const tg_work_split w = kernelView(units, clusters, last.cluster, k_tiles, true);
          EXPECT_EQ(tg_first_sharer(w, k_tiles, unit), parts.front().cluster);
          int last_items = 0;
          for (const Piece& p : pieces) last_items += p.cluster == last.cluster ? 1 : 0;
          EXPECT_EQ(last.item, last_items - 1) << "the finisher does not reach the unit's end last";
          for (size_t i = 1; i < parts.size(); ++i) {
            EXPECT_EQ(parts[i].cluster, parts[i - 1].cluster + 1);
            EXPECT_EQ(parts[i].k_begin, parts[i - 1].k_end);
          }
        }
      }
    }
  }
  EXPECT_GT(cut_units, 1000);  // the domain does exercise stream-K
}

// Stream-K evens out the last wave: where it applies, no cluster walks more K tiles than the balanced
// share rounded up to a whole K tile (whole units alone give some clusters a whole unit more), or
// under half a wave, than an even cut of each unit among as many clusters as every unit can have.
// It applies where the last wave's idle part is more than a hand-over, and to a problem of less than a
// wave at most 80% full whose shares plus a hand-over are shorter than a unit.
TEST(WorkSplit, StreamKBalancesTheLastWave) {
  int shared = 0;
  for (int clusters = 2; clusters <= 20; ++clusters) {
    for (int units = 1; units <= 3 * clusters + 2; ++units) {
      const int k_tiles = 64;
      const int rem = units % clusters;
      const bool applies = kernelView(units, clusters, 0, k_tiles, true).sk_total > 0;
      const int pieces = 2 * units <= clusters ? std::min(clusters / units, k_tiles / 4) : 0;
      const int share = pieces > 0 ? (k_tiles + pieces - 1) / pieces : (units * k_tiles + clusters - 1) / clusters;
      // Units short of a wave are cut, as long as each cluster gets 4 K tiles (or, cut in step, each
      // piece does) and its share plus a hand-over is shorter than a whole unit.
      // From a wave up, the last wave is shared where its idle part is more than a hand-over.
      const bool pays = units >= clusters ? k_tiles * (clusters - rem) > kHandOverKTiles * clusters
                                          : 5 * rem <= 4 * clusters && (units * k_tiles >= 4 * clusters || pieces >= 2) &&
                                                share + kHandOverKTiles < k_tiles;
      EXPECT_EQ(applies, rem != 0 && pays) << units << " units on " << clusters << " clusters";
      if (!applies) continue;
      ++shared;
      std::vector<int> load(static_cast<size_t>(clusters), 0);
      for (const Piece& p : walk(units, clusters, k_tiles, true)) load[static_cast<size_t>(p.cluster)] += p.k_end - p.k_begin;
      for (int c = 0; c < clusters; ++c) {
        EXPECT_LE(load[static_cast<size_t>(c)], share + 1) << units << " units on " << clusters << " clusters";
      }
    }
  }
  EXPECT_GT(shared, 400);
}

// Under half a wave every unit is cut at the same K tiles, so the clusters read the same K offsets of
// their A and B panels at the same time: a problem whose operands exceed L2 then reads them from DRAM
// once (1024x1024x32768 on an H100: 144 MB against 299 MB for one contiguous range a cluster).
TEST(WorkSplit, UnderHalfAWaveEveryUnitIsCutAtTheSameKTiles) {
  int checked = 0;
  for (int clusters = 2; clusters <= 40; ++clusters) {
    for (int units = 1; 2 * units <= clusters; ++units) {
      for (int k_tiles : {8, 13, 64, 100}) {
        if (units * k_tiles < 4 * clusters) continue;
        const int pieces = std::min(clusters / units, k_tiles / 4);
        std::map<int, std::vector<std::pair<int, int>>> cuts;  // unit -> its pieces' K ranges
        for (const Piece& p : walk(units, clusters, k_tiles, true)) cuts[p.unit].emplace_back(p.k_begin, p.k_end);
        ASSERT_EQ(cuts.size(), static_cast<size_t>(units));
        if ((k_tiles + pieces - 1) / pieces + kHandOverKTiles >= k_tiles) {
          // A piece and its hand-over would take as long as the whole unit: left whole.
          for (const auto& [unit, ranges] : cuts) EXPECT_EQ(ranges.size(), 1u) << "unit " << unit << " is cut";
          continue;
        }
        for (const auto& [unit, ranges] : cuts) {
          ASSERT_EQ(ranges.size(), static_cast<size_t>(pieces)) << units << " units on " << clusters << " clusters";
          EXPECT_EQ(ranges, cuts.begin()->second) << "unit " << unit << " is cut elsewhere than unit 0";
          for (const auto& [b, e] : ranges) EXPECT_GE(e - b, 4) << "a piece of fewer than 4 K tiles";
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 500);
}

TEST(WorkSplit, WholeWavesAndShortKStayWhole) {
  // 4 units on 2 clusters fill two waves; 3 units of 1 K tile on 2 clusters cannot give each 4.
  EXPECT_EQ(kernelView(4, 2, 0, 64, true).sk_total, 0);
  EXPECT_EQ(kernelView(3, 2, 0, 1, true).sk_total, 0);
  // 1024^3 in 128x256 pairs: 16 units of 16 K tiles would give 66 clusters fewer than 4 each;
  // 1024x1024x4096 (64 K tiles) is cut among all of them.
  EXPECT_EQ(kernelView(16, 66, 0, 16, true).sk_total, 0);
  EXPECT_EQ(kernelView(16, 66, 0, 64, true).sk_total, 16 * 64);
  // 1536^3 in 128x256 tiles alone: 72 units of 24 K tiles on 132 clusters would give each 14, plus
  // a hand-over: as long as a whole unit, so the units stay whole. With K = 4096 (64) they are cut.
  EXPECT_EQ(kernelView(72, 132, 0, 24, true).sk_total, 0);
  EXPECT_EQ(kernelView(72, 132, 0, 64, true).sk_total, 72 * 64);
  // 256 units on 66 clusters (4096^3, 128x256 pairs, 132 SMs): the last wave (58) is 88% full and
  // stays whole; 240 (5000x3000, 42 in the last wave) share it.
  EXPECT_EQ(kernelView(256, 66, 0, 64, true).sk_total, 0);
  const tg_work_split w = kernelView(240, 66, 0, 64, true);
  EXPECT_EQ(w.dp_units, 198);
  EXPECT_EQ(w.sk_total, 42 * 64);
}

// Whole units go round robin over as few clusters as still take the fewest rounds: no cluster walks
// more whole units than with all of them, the busy ones are the first, and each of them walks all
// its rounds but for at most one round short.
TEST(WorkSplit, WholeUnitsTakeTheFewestClustersOfTheFewestRounds) {
  for (bool stream_k : {false, true}) {
    for (int clusters = 1; clusters <= 20; ++clusters) {
      for (int units = 1; units <= 4 * clusters + 3; ++units) {
        for (int k_tiles : {1, 5, 64}) {
          // A cluster's whole units are its first dp_items pieces.
          std::vector<int> whole(static_cast<size_t>(clusters), 0);
          for (const Piece& p : walk(units, clusters, k_tiles, stream_k)) {
            if (p.item < kernelView(units, clusters, p.cluster, k_tiles, stream_k).dp_items) {
              ASSERT_TRUE(p.k_begin == 0 && p.k_end == k_tiles) << "a whole unit's piece is cut";
              ++whole[static_cast<size_t>(p.cluster)];
            }
          }
          const int dp_units = kernelView(units, clusters, 0, k_tiles, stream_k).dp_units;
          const int rounds = (dp_units + clusters - 1) / clusters;
          const int busy = rounds == 0 ? 0 : (dp_units + rounds - 1) / rounds;
          for (int c = 0; c < clusters; ++c) {
            const int n = whole[static_cast<size_t>(c)];
            if (c < busy) {
              EXPECT_TRUE(n == rounds || n == rounds - 1)
                  << units << " units on " << clusters << " clusters: cluster " << c << " walks " << n << " of " << rounds;
            } else {
              EXPECT_EQ(n, 0) << units << " units on " << clusters << " clusters: cluster " << c << " is past the "
                              << busy << " busy ones";
            }
          }
        }
      }
    }
  }
  // 4096^3 in 128x256 pairs on 132 SMs: 256 units on 64 of the 66 clusters, four each.
  const tg_work_split w = kernelView(256, 66, 65, 64, true);
  EXPECT_EQ(w.dp_stride, 64);
  EXPECT_EQ(w.dp_items, 0);
  EXPECT_EQ(kernelView(256, 66, 63, 64, true).dp_items, 4);
}

// The kernel walks exactly what the scheduler describes (what `plan` prints and the wave model
// scores): the same pieces in the same order for every cluster, and for every cut unit the same
// sharers and finisher, over random problems and grids up to the sizes an H100 launches and past them.
TEST(WorkSplit, TheKernelsWalkIsTheSchedulersPlan) {
  std::mt19937_64 rng(35);
  int cut = 0, in_step = 0, slices = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int clusters = std::uniform_int_distribution<int>(1, trial % 3 == 0 ? 600 : 140)(rng);
    const int units = std::uniform_int_distribution<int>(1, trial % 2 ? clusters / 2 + 1 : 5 * clusters)(rng);
    // Long K only where the units are few, so that the coverage count stays small.
    const int k_tiles = std::min(std::uniform_int_distribution<int>(1, trial % 4 == 0 ? 4096 : 160)(rng),
                                 std::max(1, 200000 / units));
    const bool stream_k = trial % 7 != 0;
    const WorkSplit plan = planWorkSplit(units, clusters, k_tiles, stream_k);
    const tg_work_split kernel = tilegrid::codegen::kernelSplit(plan);
    std::vector<int> covered(static_cast<size_t>(units) * static_cast<size_t>(k_tiles), 0);
    std::vector<int> holder(covered.size(), -1);  // the cluster that walks each (unit, K tile)
    for (int c = 0; c < clusters; ++c) {
      const tg_work_split w = tg_split_for_cluster(kernel, c);
      std::vector<tilegrid::scheduler::WorkItem> walked;
      int unit = 0, k_begin = 0, k_end = 0;
      for (int item = 0; tg_work_item(w, k_tiles, item, unit, k_begin, k_end); ++item) walked.push_back({unit, k_begin, k_end});
      ASSERT_EQ(walked, plan.itemsOf(c)) << units << " units of " << k_tiles << " K tiles on " << clusters
                                         << " clusters: cluster " << c;
      for (const auto& it : walked) {
        ASSERT_TRUE(it.unit >= 0 && it.unit < units && it.k_begin < it.k_end && it.k_end <= k_tiles);
        for (int64_t k = it.k_begin; k < it.k_end; ++k) {
          const size_t at = static_cast<size_t>(it.unit * k_tiles + k);
          ++covered[at];
          holder[at] = c;
        }
      }
    }
    for (size_t i = 0; i < covered.size(); ++i) {
      ASSERT_EQ(covered[i], 1) << units << " units of " << k_tiles << " K tiles on " << clusters << " clusters: unit "
                               << i / k_tiles << " K tile " << i % k_tiles;
    }
    for (int64_t u = plan.dp_units; u < plan.units; ++u) {
      const auto sharing = plan.sharing(u);
      const size_t first = static_cast<size_t>(u * k_tiles), last = first + static_cast<size_t>(k_tiles) - 1;
      EXPECT_EQ(sharing.first_cluster, holder[first]);
      EXPECT_EQ(sharing.finisher, holder[last]);
      const tg_work_split finisher = tg_split_for_cluster(kernel, static_cast<int>(sharing.finisher));
      EXPECT_EQ(tg_first_sharer(finisher, k_tiles, static_cast<int>(u)), sharing.first_cluster);
    }
    EXPECT_EQ(kernel.pieces >= tilegrid::scheduler::kSliceReductionMinPieces,
              plan.reduction == tilegrid::scheduler::SplitReduction::InSlices);
    EXPECT_EQ(plan.reduction == tilegrid::scheduler::SplitReduction::None, plan.sharedUnits() == 0);
    cut += plan.sharedUnits() > 0;
    in_step += plan.pieces > 0;
    slices += plan.reduction == tilegrid::scheduler::SplitReduction::InSlices;
  }
  EXPECT_GT(cut, 600);  // the draws do exercise stream-K, in step and sliced
  EXPECT_GT(in_step, 100);
  EXPECT_GT(slices, 30);
}

TEST(WorkSplit, CountsPastTheKernels32BitsAreRefused) {
  EXPECT_THROW(planWorkSplit(int64_t{1} << 31, 132, 64, true), tilegrid::UserError);
  EXPECT_THROW(planWorkSplit(256, 132, int64_t{1} << 32, true), tilegrid::UserError);
  // A stream-K sequence past 32 bits is not cut, rather than overflow in the kernel.
  EXPECT_EQ(planWorkSplit(0x7fffffff, 0x7ffffffe, 0x7fffffff, true).sharedUnits(), 0);
}

}  // namespace
