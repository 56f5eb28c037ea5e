#pragma once
// MatmulParams: every scheduling decision for one GEMM kernel, as plain data. It prints, hashes,
// compares and round-trips through JSON, and it is the cache key for generated kernels.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "tilegrid/scheduler/dot_kernel.h"
#include "tilegrid/scheduler/grid_traversal.h"
#include "tilegrid/scheduler/problem.h"
#include "tilegrid/scheduler/smem_atom.h"

namespace tilegrid::scheduler {

struct TileShape {
  int64_t m = 0, n = 0, k = 0;
  std::string toString() const;
  bool operator==(const TileShape&) const = default;
};

struct ClusterShape {
  int64_t m = 1, n = 1;
  bool operator==(const ClusterShape&) const = default;
};

// The most tiles along M or N a kernel that reads its shape at launch indexes in 32-bit tile-grid
// arithmetic: the range analysis then bounds a work unit's index by 2^28 and every intermediate of
// its tile's coordinates below 2^31, also where the cluster size is read at launch (a cluster tile's
// index times the size, plus the rank) (MatmulParams::wide_tile_grid covers larger grids).
inline constexpr int64_t kNarrowTilesPerDim = int64_t{1} << 14;

// sm_90: the tile widths a kernel that reads its tile's width at launch may hold
// (MatmulParams::width_at_launch): multiples of kLaunchWidthStep in this range.
inline constexpr int64_t kLaunchWidthNarrowest = 64, kLaunchWidthWidest = 256, kLaunchWidthStep = 8;

// sm_90 kernels have one producer warpgroup and up to this many consumer warpgroups.
inline constexpr int64_t kMaxConsumersSm90 = 4;
// sm_90 ping-pong kernels (MatmulParams::pingpong): consumer warpgroups taking alternate tiles.
inline constexpr int64_t kPingPongConsumers = 2;

// sm_90: registers a thread of the producer and of each consumer warpgroup keep after setmaxnreg, and
// the launch bound's share (65536 / threads) the kernel is compiled to. ptxas allocates the code after
// a setmaxnreg.inc up to what it grants (192 fp32 accumulators live across a loop at 384 threads
// compile without spills, reported as 168 registers), but fits each instruction's operands within the
// launch share.
struct RegisterSplit {
  int64_t producer = 0, consumer = 0, compiled = 0;
};

// sm_80: the order of a warp's mma.sync over its 16x8 blocks within a k16 step. Rows: row block
// by row block, each across all its column blocks. Columns: column block by column block, down the
// row blocks on even columns and back up on odd ones. Same math and fragments; only the instruction
// stream differs, and with it how ptxas interleaves the next step's ldmatrix (the measured effect
// depends on B's layout: heuristics.cpp).
enum class MmaOrder { Rows, Columns };
const char* toString(MmaOrder order);
// Throws UserError unless `text` is rows or columns.
MmaOrder parseMmaOrder(const std::string& text);

enum class ParamsText { All, Kernel };

struct MatmulParams {
  Arch arch = Arch::Sm90;
  TileShape cta_tile;
  // sm_80: one warp's tile. sm_90: one consumer warpgroup's tile.
  TileShape warp_tile;
  // sm_80: mma.sync m16n8k16. sm_90: wgmma m64nNk16.
  TileShape instruction_tile;
  int64_t stages = 0;
  // Elements per global->shared copy of A and B (a power of two; 16 bytes when the problem's
  // alignment allows or the operand is padded, narrower for misaligned leading dimensions).
  int64_t vec_a = 8, vec_b = 8;
  // The kernel reads A (B) through a copy whose rows are padded (operand_padding.h: paddedPitchElems),
  // made before every launch. Only for operands promised less than 16-byte alignment; sm_90
  // kernels pad every such operand.
  bool pad_a = false, pad_b = false;
  SmemAtom smem_a, smem_b;
  // The epilogue stages output tiles of epilogue_tile through shared memory with this atom.
  TileShape epilogue_tile;
  SmemAtom smem_epilogue;
  // sm_80: stage the epilogue where the problem allows it (stagedEpilogue); off, the accumulators go
  // straight to C, which frees the slabs' shared memory for another stage. sm_90 always stages.
  bool stage_epilogue = true;
  // sm_80 only; sm_90 kernels take Rows (wgmma has no such order).
  MmaOrder mma_order = MmaOrder::Rows;
  GridTraversal grid;
  bool persistent = false;
  // Persistent sm_90 kernels: the work units left over after the last whole wave (plus one wave when
  // they are few) are shared among all CTAs by K ranges (stream-K), and the CTA holding a unit's
  // last K range adds the others' fp32 partials before its epilogue. The split is computed in the
  // kernel from the grid the launch could make resident.
  bool stream_k = false;
  // Stream-K's partial sums add up in an order the plan fixes, so that every launch of the same
  // problem gives the same bits. Off, pieces cut in step add their sums at L2 by atomic reductions
  // in the order they arrive (SplitReduction::Accumulated): faster where many pieces share a tile,
  // with the last bits of C depending on that order. The kernel does either; only the launch's
  // work split differs.
  bool deterministic = false;
  ClusterShape cluster;
  int64_t split_k = 1;
  // sm_90: the kernel computes C^T = B^T * A^T, swapOperands(problem): wgmma's M runs along the
  // problem's N, and the epilogue stores each tile transposed into the row-major C. Tiles, atoms,
  // copy widths and the grid traversal all describe that kernel problem.
  bool swap_ab = false;
  // Compile the problem's sizes (M, N, K, batch, leading dimensions, batch strides) into the kernel
  // instead of reading them at launch. Kernels of both families read them at launch unless this is
  // set, so one compiled kernel serves every problem of its configuration.
  bool specialize_shape = false;
  // A kernel that reads its shape at launch prints its tile-grid arithmetic in 32 bits for grids of
  // up to kNarrowTilesPerDim tiles a side (schedule.h), and in 64 bits where needed for larger ones
  // (set here). The scheduler sets it from the problem's tile counts.
  bool wide_tile_grid = false;

  // sm_90 tiles alone (cluster 1x1) over a K-major B: the kernel holds every tile width from
  // narrowest_width to widest_width (multiples of kLaunchWidthStep) and the launch passes cta_tile.n
  // (tg_problem::bn). Shared memory, stages and epilogue slabs are laid out for the widest, so the
  // one-wave fit's widths (oneWaveTileSm90) that fit as many stages share one kernel.
  bool width_at_launch = false;
  int64_t narrowest_width = 0, widest_width = 0;
  // Compile the choices a kernel could otherwise read at launch (the traversal's factor, the
  // cluster size, C's orientation and its way of storing C) into the kernel, while it still reads the
  // problem's sizes. Reading them costs a launch a fixed time before its first load
  // (docs/runtime-shapes.md), so the scheduler compiles them in for problems whose M and N are small
  // enough that the choices change with the tile anyway, and for decode problems, where the fixed
  // time is a few percent of a kernel (chooseFixedChoices).
  bool launch_choices_compiled = false;
  // sm_90: the consumer warpgroups take tiles of their own, alternately (kPingPongConsumers of them,
  // each holding a whole cta_tile: warp_tile == cta_tile), instead of sharing each tile's rows. The
  // producer fills the stage ring in the order of the CTA's work units, so one warpgroup's main loop
  // runs while the other stores its tile: the epilogue hides under the next tile's multiplies. Each
  // warpgroup stages its own slabs (epilogueRows). Persistent, whole units (no stream-K), every unit of
  // the traversal existing (not split-merge).
  bool pingpong = false;
  // Run the problem as the dot kernel (dot_kernel.h) instead of a tiled one. The fields above still
  // describe the tiled kernel the scheduler would run otherwise, except that A and B are never padded
  // (the dot kernel reads them in place at the width their alignment allows); the dot kernel takes
  // its orientation (swap_ab) from them and reads none of the rest.
  std::optional<DotParams> dot;

  // The tile the kernel's code is laid out for: cta_tile, with the widest width where the launch
  // picks the width.
  TileShape compiledTile() const {
    return width_at_launch ? TileShape{cta_tile.m, widest_width, cta_tile.k} : cta_tile;
  }

  // The problem the kernel computes: `problem`, or its swapOperands with swap_ab.
  MatmulProblem kernelProblem(const MatmulProblem& problem) const {
    return swap_ab ? swapOperands(problem) : problem;
  }

  // Whether the kernel reads the problem's sizes at launch (else they are compiled in).
  bool shapeAtLaunch() const { return !specialize_shape; }
  // Whether it also reads the grid traversal's group at launch (one factor of split-merge or
  // swizzle-merge): kernels differing only in the group are then one kernel.
  bool groupAtLaunch() const { return shapeAtLaunch() && traversalReadAtLaunch(grid); }
  // Whether it reads the factor at launch too (a power of two up to kMaxFactorAtLaunch): kernels
  // differing only in the factor are then one kernel.
  bool factorAtLaunch() const { return !launch_choices_compiled && groupAtLaunch() && factorHeldAtLaunch(grid); }
  // sm_90: whether the kernel carries both ways of storing C, by TMA and by its threads, and the
  // launch picks (tg_problem::c_by_tma), so that one kernel serves every alignment of C. Kernels of
  // at most two consumer warpgroups (168 registers a thread) holding at most 128 fp32 accumulators
  // each (a 64x256 warpgroup tile) afford both. The second epilogue spilled beside more (a 128x152
  // warpgroup tile's 152) and in kernels of three consumers (128 registers a thread: 192x192,
  // 192x160 in pairs), so those carry the problem's one way.
  static constexpr int64_t kMaxAccumulatorsForBothCStores = 128;
  static constexpr int64_t kMaxConsumersForBothCStores = 2;
  bool storesCBothWays() const;
  // sm_90: whether the kernel holds clusters of 1 and 2 CTAs along M (kMaxClusterAtLaunch) and the
  // launch picks (tg_problem::cluster_m): tiles alone and in pairs are then one kernel. Only the
  // producer's loop is instanced per size (its B boxes and multicast, the tile index); the
  // consumers read the size. Kernels whose traversal is read at launch and whose consumers take each
  // unit's tile from the producer (not split-merge), of one tile width, whose consumers have the
  // registers to carry both ways of storing C (storesCBothWays): beside heavier consumers the size
  // read at launch spilled (three warpgroups of 128 registers a thread: 192x152 8 bytes, 192x160
  // storing C from its threads 20; 256x152 in 128-row warpgroups, 152 accumulators, 16).
  bool clusterAtLaunch() const;
  // sm_90: whether the kernel holds both orientations of C, stored straight and transposed, and the
  // launch picks (tg_problem::c_transposed). Where A and B are both K-major (TN) or both MN-major
  // (NT), swapping them leaves the kernel's operand code as it is: only the epilogue's slab layout
  // and C's offsets turn, so problems of either orientation share one kernel. A second epilogue
  // costs the consumers registers, so only kernels of 16-bit C (stored by stmatrix) with at most
  // kMaxAccumulatorsForBothCStores accumulators a consumer thread, each holding one tile width,
  // hold both: the run of widths 184-256 spilled 16 bytes with both, 256x152 computing C^T in
  // 128-row warpgroups 32, and with 4-byte C (stored an element at a time) 192x192 spilled 232
  // bytes and 128x256 a word.
  bool cOrientationAtLaunch(const MatmulProblem& problem) const;

  // Warps (sm_80) or warpgroups (sm_90) doing math.
  int64_t mathGroups() const;
  // sm_90: rows of the epilogue's slab buffers: each consumer warpgroup's rows, one after another (the
  // CTA tile's rows, or a tile a warpgroup in ping-pong kernels).
  int64_t epilogueRows() const { return mathGroups() * warp_tile.m; }
  int64_t threadsPerCta() const;
  // sm_90: the producer gives up registers the consumers take (setmaxnreg), within what the CTA
  // holds at launch: __launch_bounds__(threads, 1) registers a thread.
  RegisterSplit sm90Registers() const;
  // sm_90: registers a consumer thread needs beside its accumulators.
  int64_t sm90RegisterMargin() const;
  // sm_90: whether a consumer thread's accumulators leave it that margin, and one wgmma's leave 32
  // registers of the launch share.
  bool sm90AccumulatorsFit() const;
  // Bytes of dynamic shared memory: operand stages (with their block scales), epilogue staging,
  // barriers.
  int64_t smemBytes(const MatmulProblem& problem) const;
  // Floats of block scales a stage holds (0 without block scales).
  int64_t scaleStageFloats(const MatmulProblem& problem) const;
  // Whether the epilogue goes through shared memory (smem_epilogue). Always on sm_90. On sm_80 when
  // stage_epilogue is set, C's rows are 16-byte aligned and a warp tile's row is 2 to 32 chunks of 16
  // bytes: each warp then stages 16-row slabs of its tile and stores C in 16-byte chunks; otherwise
  // it stores from registers.
  bool stagedEpilogue(const MatmulProblem& problem) const;
  // sm_90: whether the epilogue's auxiliary output goes through slab buffers of its own (auxFitsSlab
  // says what the problem must allow), filled by
  // stmatrix beside C's and stored by TMA: 2-byte aux and C (the aux slab then has C's slab layout,
  // offset for offset), C stored straight (computing C^T, and in the transposed instance of a kernel
  // holding both orientations, aux is stored an element at a time), C's rows whole 16-byte granules
  // (the launches that store C by TMA), and slabs a whole number of stmatrix blocks. The launch still checks aux's own pointer and leading
  // dimension (tg_epilogue_args::aux_by_tma); where TMA cannot store them the threads do.
  bool auxSlab(const MatmulProblem& problem) const;
  // sm_90: whether the epilogue's input matrix c comes into slab buffers of its own by TMA loads,
  // issued two slabs ahead, and each lane reads its pairs by ldmatrix at C's stmatrix offsets
  // (cFitsSlab says what the problem must allow): C stored straight, a kernel of one tile width
  // (kernels holding several widths keep the threads' reads: they were not checked with TMA loads),
  // slabs a whole number of ldmatrix blocks.
  // The launch still checks c's own pointer and leading dimension (tg_epilogue_args::c_by_tma);
  // where TMA cannot load them the threads read c.
  bool cSlab(const MatmulProblem& problem) const;
  // sm_90: the epilogue's slab buffer pairs: C's, and the aux output's and c's where they have their
  // own (auxSlab, cSlab).
  int64_t epilogueSlabPairs(const MatmulProblem& problem) const;
  // sm_90: bytes of one double-buffered slab pair of C's elements (the aux and c slabs' too: they
  // take slabs only with C's 2-byte elements), and of c's full barriers (one per buffer of each
  // consumer warpgroup).
  int64_t slabPairBytes(const MatmulProblem& problem) const;
  int64_t cSlabBarrierBytes() const;
  // CTAs that fit on one SM at once, by shared memory, threads and registers (kernels are built with
  // __launch_bounds__(threads, 1), so up to 255 registers a thread are assumed). sm_90 kernels: 1.
  int64_t ctasPerSm(const MatmulProblem& problem, const DeviceSpec& device) const;

  // Checks the CTA, warp and instruction tiles against each other and the arch's rules, and the
  // cluster: nothing that needs the problem. Every quantity derived from them (warps, threads, CTAs an
  // SM holds) is then defined, so the heuristics run it as soon as a user's overrides are applied,
  // before computing with them. validate() runs it too.
  void validateShape() const;
  // Checks the params against the problem (the user's; swap_ab is applied here) and device:
  // instruction-shape rules, divisibility, shared memory, thread counts. Throws UserError naming the
  // field, its value and what is allowed.
  void validate(const MatmulProblem& problem, const DeviceSpec& device) const;

  // Every field; ParamsText::Kernel leaves out what the kernel reads at launch (the traversal's
  // factor and group), as the kernel's source describes its configuration.
  std::string toString(ParamsText what = ParamsText::All) const;
  size_t hash() const;
  bool operator==(const MatmulParams&) const = default;

 private:
  // sm_90: slabs stored straight, by stmatrix blocks (16 x 16): what a matrix's own slabs beside C's
  // need of the kernel (auxSlab, cSlab).
  bool straightStmatrixSlabs() const;
};

// sm_90: whether a problem's auxiliary output may go by TMA from slab buffers laid out as C's: it has
// one, its elements and C's are 2 bytes, and C's rows are whole 16-byte granules (the launches that
// store C by TMA). MatmulParams::auxSlab adds what the kernel must allow.
bool auxFitsSlab(const MatmulProblem& problem);
// sm_90: whether a problem's input matrix c may come by TMA into slab buffers laid out as C's: the
// epilogue reads c and no residual, c's elements and C's are 2 bytes, C's rows are whole 16-byte
// granules, and no aux output takes slab buffers too (a third pair would cost the largest tiles a
// stage). MatmulParams::cSlab adds what the kernel must allow.
bool cFitsSlab(const MatmulProblem& problem);
// sm_90: the shared-memory atom of an epilogue slab `slab_n` columns wide: n-contiguous when C is
// stored straight, m-contiguous (64 elements, one TMA box row) when stored transposed.
SmemAtom epilogueAtom(DType out, int64_t slab_n, bool transposed);

void to_json(nlohmann::json& j, const MatmulParams& params);
// Throws UserError for missing or mistyped fields.
void from_json(const nlohmann::json& j, MatmulParams& params);

}  // namespace tilegrid::scheduler

template <>
struct std::hash<tilegrid::scheduler::MatmulParams> {
  size_t operator()(const tilegrid::scheduler::MatmulParams& p) const { return p.hash(); }
};
