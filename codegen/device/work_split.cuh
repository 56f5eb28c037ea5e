// tilegrid device helpers: how a persistent grid of clusters divides the work units (cluster tiles)
// and, with stream-K, the K ranges of the last wave. Plain integer arithmetic, host and device: the
// unit tests include this file to check the split's defining properties on the CPU.
#pragma once

// The split seen by one cluster. Units [0, dp_units) go whole, round robin over the first dp_stride
// clusters: the fewest that still finish them in as many rounds as all the clusters would, so a last
// round that stream-K does not cut leaves whole clusters idle rather than a few SMs at the end of
// every round (H100, 4096^3 TN in 128x256 pairs: 256 units on 64 of 66 clusters, 787-790 vs 780-785
// TFLOP/s; idle SMs likely leave the busy ones more of the power budget). The rest, laid end to end
// as one sequence of sk_total K tiles, are cut into one contiguous range per cluster, [sk_begin,
// sk_end) of that sequence: sk_share K tiles each, one more for the first sk_extra clusters. 32-bit:
// the consumers keep this live beside their accumulators (a 64-bit division there spilled).
//
// A problem of at most half a wave is cut in step instead: every unit into the same `pieces` K
// ranges (sk_share K tiles each, one more for the first sk_extra), cluster c taking piece c % pieces
// of unit c / pieces, and clusters past the last unit's pieces idle. All clusters then read the same
// K offsets of their panels at the same time, so operands larger than L2 come from DRAM about once:
// contiguous ranges start each cluster at its own K offset (H100, 1024x1024x32768 in 128x128 pairs:
// 299 MB read from DRAM, 136 us, 495 TFLOP/s; in step 144 MB, 111 us, 616 TFLOP/s).
struct tg_work_split {
  int clusters, cluster;
  int dp_units, dp_stride, dp_items;
  int sk_total, sk_share, sk_extra, sk_begin, sk_end;
  int pieces, k_tiles;  // pieces: 0 for one contiguous range a cluster
};

// The first K tile (in the stream-K sequence) of cluster `c`'s range.
__host__ __device__ inline int tg_sk_range_begin(const tg_work_split& w, int c) {
  if (w.pieces == 0) return c * w.sk_share + (c < w.sk_extra ? c : w.sk_extra);
  const int unit = c / w.pieces, piece = c - unit * w.pieces;
  if (unit * w.k_tiles >= w.sk_total) return w.sk_total;
  return unit * w.k_tiles + piece * w.sk_share + (piece < w.sk_extra ? piece : w.sk_extra);
}

// What handing a cut unit's partial sum over costs, in K tiles of math (tg_split_work).
constexpr int tg_hand_over_k_tiles = 12;

// Which units go to stream-K. None when the units fill whole waves, or where the cut would not pay:
// it saves the idle part of the last wave, (1 - fill) x k_tiles K tiles of math, and costs a
// hand-over, so from a wave up the last wave is cut only where that saves more than
// tg_hand_over_k_tiles (H100, TN, TFLOP/s, cut by this rule vs by the 80%-full rule it replaced:
// 6144x6144x1024, 73% full, whole 707 vs cut 677; 4096x8192x1024 703 vs 676; 8192x8192x1024 735 vs
// 723; 4096x4096x16384, 88% full, cut 829 vs whole 821; at K = 4096 the two rules agree: 4096^3's
// 88% full wave ran 2.7% slower cut, 73% and less ran 1-9% faster). The cut takes the partial last
// wave, plus one whole wave when it is less than half a wave: every cluster then gets at least half
// a unit's K tiles and a unit is cut among at most three clusters, so the CTA that finishes one adds
// at most two partial sums. Under a wave the cut also needs the wave at most 80% full, and the
// problem is cut whole, among as many clusters as it takes to give each its share (H100, 128x256
// tiles: 512x2048x8192 211 -> 364 TFLOP/s, 256x8192x8192 390 -> 446, 1024x1024x4096 192 -> 277), in
// step where it is at most half a wave (768x768x16384 374 -> 414, 1024x1024x16384 497 -> 557).
// Never fewer than 4 K tiles a cluster or piece (a cut costs a partial sum's round trip through L2;
// 1024^3 cut to 2 a cluster ran 100 against 123 whole).
// Under a wave, only where the longest share plus a hand-over is shorter than a whole unit. A
// hand-over costs about tg_hand_over_k_tiles K tiles of math: every cut CTA stores an fp32 partial
// sum (twice the bytes of a bf16 C tile) and its unit's finisher loads it, all at about the same time
// (H100, TN, TFLOP/s, whole vs cut: 1536^3 in 128x256 tiles, 24 K tiles a unit cut to 14, 336 vs
// 308; 1200^3 228 vs 185; 1792x1792x1024 373 vs 321; 1536x2048x1024 in pairs 347 vs 281; cut where
// it pays: 1536x1536x4096, 64 K tiles a unit cut to 35, 490 vs 436 whole).
// The split of the whole grid, the same for every cluster: the host computes it for the grid it
// launches and passes it in the kernel's tg_problem argument, so that the kernel keeps none of this
// arithmetic beside its accumulators (divisions by a K-tile count read at launch spilled there).
// The per-cluster fields (cluster, dp_items, sk_begin, sk_end) are left 0: tg_split_for_cluster
// fills them.
__host__ __device__ inline tg_work_split tg_plan_split(int units, int clusters, int k_tiles, bool stream_k) {
  tg_work_split w{};
  w.clusters = clusters;
  int sk_units = 0;
  const int rem = units % clusters;
  const bool pays = units < clusters ? 5 * rem <= 4 * clusters
                                     : static_cast<long long>(k_tiles) * (clusters - rem) >
                                           static_cast<long long>(tg_hand_over_k_tiles) * clusters;
  if (stream_k && rem != 0 && pays) {
    if (units < clusters) {
      sk_units = units;
    } else {
      sk_units = 2 * rem >= clusters || units < rem + clusters ? rem : rem + clusters;
    }
    const long long total = static_cast<long long>(sk_units) * k_tiles;
    if (total < 4LL * clusters || total > 0x7fffffffLL) sk_units = 0;
  }
  int pieces = sk_units > 0 && 2 * units <= clusters ? clusters / units : 0;
  if (pieces * 4 > k_tiles) pieces = k_tiles / 4;
  if (sk_units > 0 && units < clusters) {
    const int longest = pieces > 0 ? (k_tiles + pieces - 1) / pieces : (units * k_tiles + clusters - 1) / clusters;
    if (longest + tg_hand_over_k_tiles >= k_tiles) {
      sk_units = 0;
      pieces = 0;
    }
  }
  w.dp_units = units - sk_units;
  const int rounds = (w.dp_units + clusters - 1) / clusters;
  w.dp_stride = rounds > 0 ? (w.dp_units + rounds - 1) / rounds : clusters;
  w.sk_total = sk_units * k_tiles;
  w.k_tiles = k_tiles;
  w.pieces = pieces;
  if (w.pieces > 0) {
    w.sk_share = k_tiles / w.pieces;
    w.sk_extra = k_tiles % w.pieces;
  } else {
    w.sk_share = w.sk_total / clusters;
    w.sk_extra = w.sk_total % clusters;
  }
  return w;
}

// Cluster `cluster`'s view of a planned split.
__host__ __device__ inline tg_work_split tg_split_for_cluster(tg_work_split w, int cluster) {
  w.cluster = cluster;
  w.dp_items = cluster < w.dp_stride ? (w.dp_units - cluster + w.dp_stride - 1) / w.dp_stride : 0;
  w.sk_begin = tg_sk_range_begin(w, cluster);
  w.sk_end = tg_sk_range_begin(w, cluster + 1);
  return w;
}

__host__ __device__ inline tg_work_split tg_split_work(int units, int clusters, int cluster, int k_tiles,
                                                       bool stream_k) {
  return tg_split_for_cluster(tg_plan_split(units, clusters, k_tiles, stream_k), cluster);
}

// How a unit cut in step into at least this many pieces is added up: each piece but the last adds a
// slice of their sums, and the last adds the result to its own. With fewer pieces the last adds the
// others' sums one after another (as a unit cut into contiguous ranges always is): the slices' extra
// round through L2 costs more than it saves there. H100, TN, TFLOP/s, in turn vs in slices:
// 256x256x65536 (33 pieces) 125 vs 186, 384x384x16384 NT (14) 136 vs 176, 512x512x16384 (8) 239 vs
// 257, 384x768x16384 (7) 254 vs 267, 640x640x16384 (5) 339 vs 340, 512x512x8192 (4) 190 vs 184,
// 768x768x16384 (3) 414 vs 396.
constexpr int tg_split_reduce_min_pieces = 6;

__host__ __device__ inline bool tg_reduces_in_slices(const tg_work_split& w) {
  return w.pieces >= tg_split_reduce_min_pieces;
}

// The cluster's `item`-th piece of work: a unit and its K tiles [k_begin, k_end). False past the last.
// A cluster walks its stream-K range from its last unit down: every cluster then starts the phase
// at K tile 0 of some unit and all move through K in step, so neighbouring units' A and B panels
// are read from L2 by all at about the same time (in range order, each cluster would start at a
// different K offset and miss L2). The piece a cluster reaches last is the end of a unit: the
// cluster holding a unit's last K tile finishes it, the others hand over their partial sums.
__host__ __device__ inline bool tg_work_item(const tg_work_split& w, int k_tiles, int item, int& unit, int& k_begin,
                                             int& k_end) {
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
__host__ __device__ inline int tg_first_sharer(const tg_work_split& w, int k_tiles, int unit) {
  const int unit_begin = (unit - w.dp_units) * k_tiles;
  int c = w.cluster;
  while (c > 0 && tg_sk_range_begin(w, c) > unit_begin) --c;
  return c;
}
