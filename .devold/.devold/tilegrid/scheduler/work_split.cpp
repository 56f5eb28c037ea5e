#include "tilegrid/scheduler/work_split.h"

#include <algorithm>
#include <fmt/format.h>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

const char* toString(SplitReduction r) {
  switch (r) {
    case SplitReduction::None: return "none";
    case SplitReduction::InTurn: return "in_turn";
    case SplitReduction::InSlices: return "in_slices";
    case SplitReduction::Accumulated: return "accumulated";
  }
  return "?";
}

namespace {

// The kernel walks the split in 32-bit arithmetic (its fields sit beside the accumulators): counts
// up to kMaxExtent.
constexpr int64_t kMaxSplitCount = kMaxExtent;

// How many units stream-K cuts, before the checks on the size of the shares.
int64_t unitsWorthCutting(int64_t units, int64_t clusters, int64_t k_tiles) {
  const int64_t rem = units % clusters;
  if (rem == 0) return 0;
  if (units < clusters) return 5 * rem <= 4 * clusters ? units : 0;
  if (k_tiles * (clusters - rem) <= kHandOverKTiles * clusters) return 0;
  return 2 * rem >= clusters || units < rem + clusters ? rem : rem + clusters;
}

}  // namespace

int64_t inStepPieces(int64_t units, int64_t clusters, int64_t k_tiles) {
  return 2 * units <= clusters ? std::min(clusters / units, k_tiles / kMinSplitKTiles) : 0;
}

WorkSplit planWorkSplit(int64_t units, int64_t clusters, int64_t k_tiles, bool stream_k) {
  TG_INTERNAL_CHECK(units >= 1 && clusters >= 1 && k_tiles >= 1)
      << "planWorkSplit: " << units << " units, " << clusters << " clusters, " << k_tiles << " K tiles";
  TG_USER_CHECK(units <= kMaxSplitCount && clusters <= kMaxSplitCount && k_tiles <= kMaxSplitCount)
      << units << " work units of " << k_tiles << " K tiles on " << clusters
      << " clusters: the kernels count each in 32 bits, at most " << kMaxSplitCount;
  WorkSplit w;
  w.units = units;
  w.clusters = clusters;
  w.k_tiles = k_tiles;
  int64_t sk_units = stream_k ? unitsWorthCutting(units, clusters, k_tiles) : 0;
  const int64_t total = sk_units * k_tiles;
  // Shared among every cluster, each share needs kMinSplitKTiles; cut in step, each unit is cut into
  // no more pieces than give each that many (inStepPieces), so fewer K tiles than that only means
  // fewer pieces.
  const bool in_step = inStepPieces(units, clusters, k_tiles) >= 2;
  if ((total < kMinSplitKTiles * clusters && !in_step) || total > kMaxSplitCount) sk_units = 0;
  int64_t pieces = sk_units > 0 ? inStepPieces(units, clusters, k_tiles) : 0;
  if (sk_units > 0 && units < clusters) {
    // Under a wave the whole problem is cut; that pays only where a cluster's longest share plus a
    // hand-over is shorter than the whole unit it would otherwise compute.
    const int64_t longest = pieces > 0 ? ceilDiv(k_tiles, pieces) : ceilDiv(units * k_tiles, clusters);
    if (longest + kHandOverKTiles >= k_tiles) sk_units = 0, pieces = 0;
  }
  w.dp_units = units - sk_units;
  const int64_t rounds = ceilDiv(w.dp_units, clusters);
  w.dp_stride = rounds > 0 ? ceilDiv(w.dp_units, rounds) : clusters;
  w.sk_total = sk_units * k_tiles;
  w.pieces = pieces;
  const int64_t cut = pieces > 0 ? k_tiles : w.sk_total, among = pieces > 0 ? pieces : clusters;
  w.sk_share = cut / among;
  w.sk_extra = cut % among;
  w.reduction = sk_units == 0                         ? SplitReduction::None
                : pieces >= kSliceReductionMinPieces ? SplitReduction::InSlices
                                                     : SplitReduction::InTurn;
  return w;
}

int64_t WorkSplit::rangeBegin(int64_t c) const {
  if (pieces == 0) return c * sk_share + std::min(c, sk_extra);
  const int64_t unit = c / pieces, piece = c % pieces;
  if (unit * k_tiles >= sk_total) return sk_total;
  return unit * k_tiles + piece * sk_share + std::min(piece, sk_extra);
}

std::vector<WorkItem> WorkSplit::itemsOf(int64_t c) const {
  TG_INTERNAL_CHECK(c >= 0 && c < clusters) << "cluster " << c << " of " << clusters;
  std::vector<WorkItem> items;
  for (int64_t unit = c; c < dp_stride && unit < dp_units; unit += dp_stride) items.push_back({unit, 0, k_tiles});
  const int64_t begin = rangeBegin(c), end = rangeBegin(c + 1);
  if (end <= begin) return items;
  for (int64_t u = (end - 1) / k_tiles; u >= 0 && (u + 1) * k_tiles > begin; --u) {
    const int64_t first = u * k_tiles;
    items.push_back({dp_units + u, std::max<int64_t>(begin - first, 0), std::min(end - first, k_tiles)});
  }
  return items;
}

UnitSharing WorkSplit::sharing(int64_t unit) const {
  TG_INTERNAL_CHECK(unit >= dp_units && unit < units) << "unit " << unit << " is not cut (" << dp_units << " of "
                                                       << units << " go whole)";
  const int64_t begin = (unit - dp_units) * k_tiles, last_tile = begin + k_tiles - 1;
  // The cluster whose range holds stream-K tile t: ranges are ordered and cover [0, sk_total).
  const auto holder = [&](int64_t t) {
    int64_t lo = 0, hi = clusters - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (rangeBegin(mid) <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
  };
  UnitSharing s;
  s.unit = unit;
  s.first_cluster = holder(begin);
  s.last_cluster = holder(last_tile);
  s.finisher = s.last_cluster;
  return s;
}

std::string WorkSplit::describe() const {
  const int64_t last = units % clusters;
  std::string text = fmt::format("{} units of {} K tiles on {} clusters: {} whole wave(s){}", units, k_tiles, clusters,
                                 units / clusters, last ? fmt::format(" and {} of {} in the last", last, clusters) : "");
  if (dp_units > clusters && dp_stride < clusters) {
    text += fmt::format("; the {} whole units go to the first {} clusters, {} round(s) each, the other {} idle",
                        dp_units, dp_stride, ceilDiv(dp_units, dp_stride), clusters - dp_stride);
  }
  if (reduction == SplitReduction::None) return text;
  const int64_t longest = sk_share + (sk_extra > 0 ? 1 : 0);
  if (pieces > 0) {
    return text + fmt::format("; stream-K cuts every unit into the same {} pieces of {}-{} K tiles, one a cluster "
                              "({} of {} clusters busy), the cluster with a unit's last piece finishes it; {}",
                              pieces, sk_share, longest, units * pieces, clusters,
                              reduction == SplitReduction::Accumulated ? "the other pieces add their sums into one at L2"
                              : reduction == SplitReduction::InSlices
                                  ? "the other pieces first add up the sums a slice each"
                                  : "it adds the others' sums in turn");
  }
  const UnitSharing first = sharing(dp_units), final = sharing(units - 1);
  return text + fmt::format("; stream-K cuts the last {} units into one range of {}-{} K tiles a cluster: unit {} "
                            "is shared by clusters {}-{} and finished by {}, ..., unit {} by {}-{}, finished by {}",
                            sharedUnits(), sk_share, longest, first.unit, first.first_cluster, first.last_cluster,
                            first.finisher, final.unit, final.first_cluster, final.last_cluster, final.finisher);
}

}  // namespace tilegrid::scheduler
