// tilegrid device helpers: a persistent cluster's share of the work. The host plans how the launched
// grid divides the work units (tilegrid/scheduler/work_split.h, planWorkSplit) and passes the plan in the
// kernel's tg_problem argument; these functions only walk it, with no policy of their own. Plain
// integer arithmetic that host code may include too: the unit tests run the kernel's walk on the CPU
// against the scheduler's description of the same split.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TG_SPLIT_FN __host__ __device__ inline
#else
#define TG_SPLIT_FN inline
#endif

// How the partial sums of a cut unit add up (scheduler::SplitReduction): the finisher adds the
// others' sums in turn; pieces cut in step add a slice of all the sums each first; or they add their
// sums into one per unit at L2.
enum : int { TG_REDUCE_IN_TURN = 0, TG_REDUCE_IN_SLICES = 1, TG_REDUCE_ACCUMULATED = 2 };

// The plan, the same for every cluster, and one cluster's view of it (cluster, dp_items, sk_begin,
// sk_end: filled by tg_split_for_cluster). Units [0, dp_units) go whole, round robin over the first
// dp_stride clusters; the others, laid end to end as sk_total K tiles, are cut into one contiguous
// range per cluster (sk_share K tiles, one more for the first sk_extra clusters), or with pieces > 0
// every unit into the same `pieces` ranges, cluster c taking piece c % pieces of unit c / pieces;
// `reduction` says how a cut unit's sums add up.
// 32-bit: the consumers keep this live beside their accumulators (64-bit arithmetic there spilled).
struct tg_work_split {
  int clusters, cluster;
  int dp_units, dp_stride, dp_items;
  int sk_total, sk_share, sk_extra, sk_begin, sk_end;
  int pieces, k_tiles;
  int reduction;  // TG_REDUCE_*
};

// The first K tile (in the stream-K sequence) of cluster `c`'s range.
TG_SPLIT_FN int tg_sk_range_begin(const tg_work_split& w, int c) {
  if (w.pieces == 0) return c * w.sk_share + (c < w.sk_extra ? c : w.sk_extra);
  const int unit = c / w.pieces, piece = c - unit * w.pieces;
  if (unit * w.k_tiles >= w.sk_total) return w.sk_total;
  return unit * w.k_tiles + piece * w.sk_share + (piece < w.sk_extra ? piece : w.sk_extra);
}

// Cluster `cluster`'s view of a planned split.
TG_SPLIT_FN tg_work_split tg_split_for_cluster(tg_work_split w, int cluster) {
  w.cluster = cluster;
  w.dp_items = cluster < w.dp_stride ? (w.dp_units - cluster + w.dp_stride - 1) / w.dp_stride : 0;
  w.sk_begin = tg_sk_range_begin(w, cluster);
  w.sk_end = tg_sk_range_begin(w, cluster + 1);
  return w;
}

// The cluster's `item`-th piece of work: a unit and its K tiles [k_begin, k_end). False past the last.
// Whole units first, then the stream-K range from its last unit down: every cluster then starts the
// cut phase at K tile 0 of some unit, and the piece a cluster reaches last is the end of a unit, so
// the cluster holding a unit's last K tile finishes it.
TG_SPLIT_FN bool tg_work_item(const tg_work_split& w, int k_tiles, int item, int& unit, int& k_begin, int& k_end) {
  if (item < w.dp_items) {
    unit = w.cluster + item * w.dp_stride;
    k_begin = 0;
    k_end = k_tiles;
    return true;
  }
  if (w.sk_end <= w.sk_begin) return false;
  const int u = (w.sk_end - 1) / k_tiles - (item - w.dp_items);
  const int first = u * k_tiles;
  if (first + k_tiles <= w.sk_begin) return false;
  unit = w.dp_units + u;
  k_begin = w.sk_begin > first ? w.sk_begin - first : 0;
  k_end = w.sk_end - first < k_tiles ? w.sk_end - first : k_tiles;
  return true;
}

// The clusters before this one whose ranges hold earlier K tiles of stream-K unit `unit`:
// [first, cluster - 1].
TG_SPLIT_FN int tg_first_sharer(const tg_work_split& w, int k_tiles, int unit) {
  const int unit_begin = (unit - w.dp_units) * k_tiles;
  int c = w.cluster;
  while (c > 0 && tg_sk_range_begin(w, c) > unit_begin) --c;
  return c;
}

#undef TG_SPLIT_FN
