// The persistent kernels' work split (codegen/device/work_split.cuh), run on the CPU: for every grid
// of small sizes, the pieces the clusters walk cover each (unit, K tile) exactly once, and the
// stream-K hand-over the kernels rely on holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "codegen/work_split.h"
#include "scheduler/wave_model.h"

namespace {

struct Piece {
  int cluster, item, unit, k_begin, k_end;
};

std::vector<Piece> walk(int units, int clusters, int k_tiles, bool stream_k) {
  std::vector<Piece> pieces;
  for (int c = 0; c < clusters; ++c) {
    const tg_work_split w = tg_split_work(units, clusters, c, k_tiles, stream_k);
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
            EXPECT_EQ(p.item, tg_split_work(units, clusters, p.cluster, k_tiles, true).dp_items)
                << "a hand-over piece is not its cluster's first stream-K piece";
          }
        }
        for (const auto& [c, n] : handed_over) EXPECT_EQ(n, 1) << "cluster " << c << " hands over " << n << " sums";
        for (const auto& [unit, parts] : by_unit) {
          if (parts.size() == 1) continue;
          ++cut_units;
          // From half a wave up, a unit is cut at most three ways; a smaller problem among as many
          // clusters as its K tiles span at every cluster's share.
          const int share = tg_split_work(units, clusters, 0, k_tiles, true).sk_share;
          const size_t most = 2 * units >= clusters ? 3u : static_cast<size_t>((k_tiles + share - 1) / share + 1);
          ASSERT_LE(parts.size(), most) << units << " units on " << clusters << " clusters: unit " << unit << " cut "
                                        << parts.size() << " ways";
          // walk() lists clusters in order, so the parts run from the first K tile to the last.
          const Piece& last = parts.back();
          ASSERT_EQ(last.k_end, k_tiles);
          ASSERT_EQ(parts.front().k_begin, 0);
          const tg_work_split w = tg_split_work(units, clusters, last.cluster, k_tiles, true);
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
      const bool applies = tg_split_work(units, clusters, 0, k_tiles, true).sk_total > 0;
      const int pieces = 2 * units <= clusters ? std::min(clusters / units, k_tiles / 4) : 0;
      const int share = pieces > 0 ? (k_tiles + pieces - 1) / pieces : (units * k_tiles + clusters - 1) / clusters;
      // Units short of a wave are cut whole, as long as each cluster gets 4 K tiles and its share
      // plus a hand-over is shorter than a whole unit.
      // From a wave up, the last wave is shared where its idle part is more than a hand-over.
      const bool pays = units >= clusters ? k_tiles * (clusters - rem) > tg_hand_over_k_tiles * clusters
                                          : 5 * rem <= 4 * clusters && units * k_tiles >= 4 * clusters &&
                                                share + tg_hand_over_k_tiles < k_tiles;
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

// The scheduler's wave model decides what the kernel's split shares with the same hand-over cost.
static_assert(tilegrid::scheduler::kHandOverKTiles == tg_hand_over_k_tiles);

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
        if ((k_tiles + pieces - 1) / pieces + tg_hand_over_k_tiles >= k_tiles) {
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
  EXPECT_EQ(tg_split_work(4, 2, 0, 64, true).sk_total, 0);
  EXPECT_EQ(tg_split_work(3, 2, 0, 1, true).sk_total, 0);
  // 1024^3 in 128x256 pairs: 16 units of 16 K tiles would give 66 clusters fewer than 4 each;
  // 1024x1024x4096 (64 K tiles) is cut among all of them.
  EXPECT_EQ(tg_split_work(16, 66, 0, 16, true).sk_total, 0);
  EXPECT_EQ(tg_split_work(16, 66, 0, 64, true).sk_total, 16 * 64);
  // 1536^3 in 128x256 tiles alone: 72 units of 24 K tiles on 132 clusters would give each 14, plus
  // a hand-over: as long as a whole unit, so the units stay whole. With K = 4096 (64) they are cut.
  EXPECT_EQ(tg_split_work(72, 132, 0, 24, true).sk_total, 0);
  EXPECT_EQ(tg_split_work(72, 132, 0, 64, true).sk_total, 72 * 64);
  // 256 units on 66 clusters (4096^3, 128x256 pairs, 132 SMs): the last wave (58) is 88% full and
  // stays whole; 240 (5000x3000, 42 in the last wave) share it.
  EXPECT_EQ(tg_split_work(256, 66, 0, 64, true).sk_total, 0);
  const tg_work_split w = tg_split_work(240, 66, 0, 64, true);
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
            if (p.item < tg_split_work(units, clusters, p.cluster, k_tiles, stream_k).dp_items) {
              ASSERT_TRUE(p.k_begin == 0 && p.k_end == k_tiles) << "a whole unit's piece is cut";
              ++whole[static_cast<size_t>(p.cluster)];
            }
          }
          const int dp_units = tg_split_work(units, clusters, 0, k_tiles, stream_k).dp_units;
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
  const tg_work_split w = tg_split_work(256, 66, 65, 64, true);
  EXPECT_EQ(w.dp_stride, 64);
  EXPECT_EQ(w.dp_items, 0);
  EXPECT_EQ(tg_split_work(256, 66, 63, 64, true).dp_items, 4);
}

}  // namespace
