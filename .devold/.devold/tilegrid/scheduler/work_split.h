#pragma once
// How a persistent grid of clusters divides a GEMM's work units (cluster tiles) and, with stream-K,
// the K tiles of the units a last wave would leave unevenly spread. Plain host data: the scheduler
// plans it for the grid it launches, `plan` prints it, the wave model scores tiles by it, and the
// kernel receives it as a launch argument (tilegrid/codegen/problem_args.h) and decides nothing itself.
//
// The split:
// - Units [0, dp_units) go whole, round robin over the first dp_stride clusters: the fewest that
//   still finish them in as many rounds as all the clusters would. A last round that stream-K does
//   not cut then leaves whole clusters idle rather than a few SMs at the end of every round.
// - The remaining units, laid end to end as one sequence of sk_total K tiles, go one contiguous
//   range per cluster: sk_share K tiles each, one more for the first sk_extra clusters.
// - A problem of at most half a wave is cut in step instead: every unit into the same `pieces` K
//   ranges (sk_share K tiles each, one more for the first sk_extra), cluster c taking piece
//   c % pieces of unit c / pieces. All clusters then read the same K offsets of their panels at the
//   same time, so operands larger than L2 come from DRAM about once.
#include <cstdint>
#include <string>
#include <vector>

namespace tilegrid::scheduler {

// How the partial sums of a unit cut by stream-K are added up.
enum class SplitReduction {
  None,      // nothing is cut
  InTurn,    // the cluster holding a unit's last K tile adds the others' sums one after another
  InSlices,  // in-step pieces: each piece but the last adds a slice of all the sums, the last adds those
  // In-step pieces: each piece but the last adds its sum into one sum per unit at L2 (atomic vector
  // reductions, in arrival order), the last waits for their count and adds that sum. One round
  // through L2 instead of three, but the rounding depends on the order the pieces arrive in.
  Accumulated,
};
const char* toString(SplitReduction r);

// A partial sum handed over costs about this many K tiles of math: the cut CTA stores an fp32 tile
// (twice the bytes of a bf16 C tile) and the finisher loads it, all at about the same time.
constexpr int64_t kHandOverKTiles = 12;
// Pieces cut in step are added up in slices from this many on; below it the extra round of every
// slice through L2 costs more than adding the sums in turn saves.
constexpr int64_t kSliceReductionMinPieces = 6;
// The accumulated sums of in-step pieces live in an area of this many bytes at a fixed place in the
// workspace, after the flags, which every kernel leaves zeroed (the sums must start from zero, and
// a workspace is shared by kernels whose other scratch differs). A split accumulates only where its
// units' sums fit.
constexpr int64_t kAccumulationBytes = int64_t{1} << 20;
// Kernels whose consumer threads hold at most this many fp32 accumulators carry the accumulating
// path; beside more (128 for a 64x256 warpgroup tile) its loads, stores and addresses spilled, so
// those kernels add in-step sums in slices.
constexpr int64_t kMaxAccumulatorsToAccumulate = 64;
// Never fewer K tiles than this for a cluster's range or a piece: each cut costs a partial sum's
// round trip through L2.
constexpr int64_t kMinSplitKTiles = 4;

// One piece of a cluster's work: unit `unit` (over all batch entries), K tiles [k_begin, k_end).
struct WorkItem {
  int64_t unit = 0, k_begin = 0, k_end = 0;
  bool operator==(const WorkItem&) const = default;
};

// The clusters whose stream-K ranges hold K tiles of one cut unit, and the one that finishes it.
struct UnitSharing {
  int64_t unit = 0, first_cluster = 0, last_cluster = 0;
  int64_t finisher = 0;  // adds the others' partial sums and stores C
};

struct WorkSplit {
  int64_t units = 0, clusters = 0, k_tiles = 0;
  int64_t dp_units = 0, dp_stride = 0;
  int64_t sk_total = 0, sk_share = 0, sk_extra = 0;
  int64_t pieces = 0;  // 0: one contiguous range a cluster
  SplitReduction reduction = SplitReduction::None;

  int64_t sharedUnits() const { return units - dp_units; }
  // The first K tile (in the stream-K sequence) of cluster c's range; sk_total past the last.
  int64_t rangeBegin(int64_t c) const;
  // Cluster c's work in the order the kernel walks it: its whole units, then its stream-K range
  // from its last unit down (every cluster then starts the cut phase at K tile 0 of some unit, so
  // neighbouring units' panels are read from L2 by all at about the same time).
  std::vector<WorkItem> itemsOf(int64_t c) const;
  // Who shares cut unit `unit` (dp_units <= unit < units) and who finishes it: the cluster holding
  // its last K tile.
  UnitSharing sharing(int64_t unit) const;
  // One line for `tilegrid plan`.
  std::string describe() const;
};

// The split of `units` work units of `k_tiles` K tiles each on `clusters` clusters. With stream_k,
// a last wave is cut where that saves more idle math than its hand-overs cost:
// - From a wave up, the cut saves (clusters - rem) x k_tiles idle K tiles and costs a hand-over a
//   cluster. It takes the partial last wave, plus one whole wave when the partial one is under half
//   a wave, so that every cluster gets at least half a unit and a unit is cut among at most three.
// - Under a wave, it needs the wave at most 80% full, and the longest share plus a hand-over must
//   be shorter than a whole unit. The whole problem is then cut, in step when it is at most half a
//   wave.
// Throws a user error for counts past the kernels' 32-bit arithmetic.
WorkSplit planWorkSplit(int64_t units, int64_t clusters, int64_t k_tiles, bool stream_k);

// The in-step cut a stream-K split of at most half a wave makes, before it weighs the cut against its
// hand-overs: every unit into as many pieces as the clusters allow, each at least kMinSplitKTiles long.
// 0 above half a wave.
int64_t inStepPieces(int64_t units, int64_t clusters, int64_t k_tiles);

}  // namespace tilegrid::scheduler
