#pragma once
// MatmulSchedule: the scheduler's output. Plain params plus the scheduled TensorDomains codegen
// prints indices from: the CTA tile grid, the staged A and B shared-memory tiles and the epilogue
// tile.
#include <string>

#include "ir/tensor_domain.h"
#include "scheduler/heuristics.h"
#include "scheduler/kernel_domains.h"
#include "scheduler/operand_banks.h"
#include "scheduler/params.h"

namespace tilegrid::scheduler {

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

  MatmulProblem kernelProblem() const { return params.kernelProblem(problem); }
  int64_t tilesM() const;
  int64_t tilesN() const;
  int64_t tiles() const { return tilesM() * tilesN() * problem.batch; }
  // Work units the traversal launches (tiles plus any split-merge overhang); a clustered grid's
  // unit is one cluster tile.
  int64_t workUnits() const;
  // Tiles of the work units that fall outside the grid: split-merge's overhang, a partial cluster.
  int64_t wastedTiles() const { return workUnits() * params.cluster.m * params.cluster.n - tiles(); }
  // CTAs launched: the work units, or for a persistent kernel at most one CTA per SM.
  int64_t ctas() const;

  // Params, atoms, bank checks, the IR of each scheduled domain and the tile-grid summary.
  std::string toString() const;
};

// Heuristic params with `overrides` applied, then the scheduled domains.
MatmulSchedule schedule(MatmulProblem problem, const DeviceSpec& device, const ScheduleOverrides& overrides = {});
// Exactly these params (validated).
MatmulSchedule scheduleWith(MatmulProblem problem, const DeviceSpec& device, const MatmulParams& params);

}  // namespace tilegrid::scheduler
