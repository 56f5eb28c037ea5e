#pragma once
// MatmulSchedule: the scheduler's output. Plain params plus the scheduled TensorDomains codegen
// prints indices from: the CTA tile grid, the staged A and B shared-memory tiles and the epilogue
// tile.
#include <map>
#include <utility>
#include <string>

#include "tilegrid/ir/tensor_domain.h"
#include "tilegrid/scheduler/heuristics.h"
#include "tilegrid/scheduler/kernel_domains.h"
#include "tilegrid/scheduler/operand_banks.h"
#include "tilegrid/scheduler/params.h"
#include "tilegrid/scheduler/work_split.h"

namespace tilegrid::scheduler {

// How the kernel reads one of its operands: from the caller's buffer, or from the padded copy the
// runtime makes of it (MatmulParams::pad_a / pad_b).
struct OperandLayout {
  Major major = Major::K;
  int64_t rows = 0, contiguous = 0;  // stored rows and the elements of each that belong to the matrix
  int64_t ld = 0, batch_stride = 0;  // as the kernel reads them
  bool padded = false;
  int64_t user_ld = 0, user_batch_stride = 0;  // the caller's buffer
};

// The names of the problem parameters a kernel that reads its shape at launch is printed over.
// They describe the kernel problem (swap_ab turns the caller's around) and reach the kernel in its
// tg_problem argument (tilegrid/codegen/device/problem.cuh).
namespace shape_param {
inline constexpr const char* kM = "M";
inline constexpr const char* kN = "N";
inline constexpr const char* kK = "K";
inline constexpr const char* kLda = "lda";
inline constexpr const char* kLdb = "ldb";
inline constexpr const char* kLdc = "ldc";
inline constexpr const char* kTilesM = "tiles_m";
inline constexpr const char* kTilesN = "tiles_n";
// The grid traversal's group (kGroupParamM or kGroupParamN), where the kernel reads it at launch
// (MatmulParams::groupAtLaunch).
inline constexpr const char* kGridGroup = "grid_group";
// Cluster tiles along the grouped dimension and along the other one (MatmulSchedule::gridExtents).
inline constexpr const char* kGridGrouped = "grid_grouped";
inline constexpr const char* kGridOther = "grid_other";
// The traversal's factor, where the kernel reads it at launch (MatmulParams::factorAtLaunch). Not a
// field index functions read: the kernel passes it to the tile index as a template argument, one
// instance per factor it holds (scheduler::kMaxFactorAtLaunch).
inline constexpr const char* kGridFactor = "grid_factor";
// The cluster size (CTAs along M), passed alike where the kernel holds several
// (MatmulParams::clusterAtLaunch).
inline constexpr const char* kClusterM = "cluster_m";
}  // namespace shape_param

// C in one orientation: the epilogue slab's atom and domain, and C's global domain over the kernel
// problem's (m, n).
struct COrientationDomains {
  SmemAtom atom;
  ir::TensorDomain smem_epilogue;
  ir::TensorDomain gmem_c;
};

struct MatmulSchedule {
  MatmulProblem problem;  // the caller's: what the buffers hold and the result must equal
  DeviceSpec device;
  MatmulParams params;
  // The domains below, and tile counts, describe kernelProblem(): the problem, or with
  // params.swap_ab its swapOperands.
  ir::TensorDomain tile_grid;      // [tile_m, tile_n] -> one axis bound to blockIdx.x
  ir::TensorDomain smem_a;         // [m, k, stage] with the atom-tiled, swizzled allocation
  ir::TensorDomain smem_b;         // [n, k, stage]
  ir::TensorDomain smem_epilogue;  // [m, n, slab buffer]: 1 buffer on sm_80, 2 on sm_90
  ir::TensorDomain gmem_a;         // [m, k] in A's storage order
  ir::TensorDomain gmem_b;         // [n, k] in B's storage order
  ir::TensorDomain gmem_c;         // [m, n] row-major (column-major with swap_ab)
  ir::TensorDomain copy_a;         // [row, col] of A's smem tile -> [iteration, thread, vec]
  ir::TensorDomain copy_b;
  ir::TensorDomain warp_grid;      // [warp_m, warp_n] -> warp index
  OperandBankCheck banks_a, banks_b;
  // How the params were chosen (chooseParams), or that the caller gave them (scheduleWith).
  DecisionTrace decisions;

  MatmulProblem kernelProblem() const { return params.kernelProblem(problem); }
  // Whether the kernel holds both orientations of C (MatmulParams::cOrientationAtLaunch).
  bool cOrientationAtLaunch() const { return params.cOrientationAtLaunch(problem); }
  // C's domains stored straight (transposed false) or transposed: the launch's own (smem_epilogue,
  // gmem_c) where it matches params.swap_ab, else the other orientation's over the same slab and sizes.
  COrientationDomains cOrientation(bool transposed) const;
  // Operand 'a', 'b' or 'c' of kernelProblem() as the kernel reads or writes it.
  OperandLayout operandLayout(char operand) const;
  // The value of every shape parameter (shape_param) for this problem: what the kernel's tg_problem
  // argument holds. Empty when the shape is compiled in.
  ir::Bindings shapeValues() const;
  // The largest value of each shape parameter the kernel's index types were printed for: the
  // ranges its index functions are proven in 32 or 64 bits over. Empty when the shape is compiled in.
  std::map<std::string, int64_t> shapeLimits() const;
  int64_t tilesM() const;
  int64_t tilesN() const;
  // Cluster tiles along the traversal's grouped dimension and along the other one.
  std::pair<int64_t, int64_t> gridExtents() const;
  int64_t tiles() const { return tilesM() * tilesN() * problem.batch; }
  // K tiles of the kernel problem, and the k16 steps of a last K tile cut by K (0 when the tile's k
  // divides K).
  int64_t kTiles() const { return ceilDiv(kernelProblem().k, params.cta_tile.k); }
  int64_t kTailSteps() const;
  // Work units the traversal launches (tiles plus any split-merge overhang); a clustered grid's
  // unit is one cluster tile.
  int64_t workUnits() const;
  // Tiles of the work units that fall outside the grid: split-merge's overhang, a partial cluster.
  int64_t wastedTiles() const { return workUnits() * params.cluster.m * params.cluster.n - tiles(); }
  // CTAs launched: the work units, or for a persistent kernel at most one CTA per SM.
  int64_t ctas() const;
  // How a persistent launch of `clusters` clusters divides the work units (planWorkSplit; the sm_80
  // kernel walks its units round robin over every CTA launched, without stream-K). Without an
  // argument, for the planned grid, ctas() / cluster size.
  WorkSplit workSplit(int64_t clusters) const;
  // Whether the kernel carries the accumulating path (kMaxAccumulatorsToAccumulate): sm_90 stream-K
  // kernels whose consumer threads hold few enough accumulators (for the widest tile they hold).
  bool accumulates() const {
    return params.arch == Arch::Sm90 && params.stream_k &&
           params.warp_tile.m * params.compiledTile().n / 128 <= kMaxAccumulatorsToAccumulate;
  }
  // sm_90: whether the kernel carries both ways of storing C (MatmulParams::storesCBothWays).
  bool storesCBothWays() const { return params.storesCBothWays(); }
  // Bytes of one work unit's fp32 sum where in-step pieces accumulate it: its CTAs' tiles, each as
  // the kernel lays it out (the widest tile it holds).
  int64_t accumulatedSumBytes() const {
    return params.cluster.m * params.cluster.n * params.cta_tile.m * params.compiledTile().n * 4;
  }
  WorkSplit workSplit() const { return workSplit(ctas() / (params.cluster.m * params.cluster.n)); }

  // Params, atoms, bank checks, the IR of each scheduled domain and the tile-grid summary.
  std::string toString() const;
};

// Heuristic params with `overrides` applied, then the scheduled domains.
MatmulSchedule schedule(MatmulProblem problem, const DeviceSpec& device, const ScheduleOverrides& overrides = {});
// Exactly these params (validated).
MatmulSchedule scheduleWith(MatmulProblem problem, const DeviceSpec& device, const MatmulParams& params);

}  // namespace tilegrid::scheduler
