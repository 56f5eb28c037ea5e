#pragma once
// The index math of a scheduled GEMM, printed from the Indexer as small __device__ functions.
// Kernels call only these for schedule-dependent indices, so changing the schedule (grid method,
// factor, smem atom, tile copy) changes exactly these functions.
#include <string>

#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::codegen {

// tg_tile_of<grid_factor, cluster_m>(p, cta, rank, tile_m, tile_n, valid);
// tg_smem_a(m, k, stage) and tg_smem_b(n, k, stage) (element offsets in a stage ring);
// tg_gmem_a(p, m, k), tg_gmem_b(p, n, k), tg_gmem_c(p, m, n) (element offsets in global memory);
// tg_smem_epilogue(m, n, buffer) (the output slab); sm_90 prints C's two for each orientation of C,
// taking its tag first: tg_smem_epilogue(tg_c_orientation<T>, ...), tg_gmem_c(tg_c_orientation<T>, p, ...);
// tg_copy_a/b(iteration, thread, row, col, valid) (which piece of a tile a thread copies);
// tg_warp_of(warp, warp_m, warp_n). `p` is the launch's tg_problem: functions of the problem's
// shape read it where the kernel reads its shape at launch.
std::string emitMatmulIndexFunctions(const scheduler::MatmulSchedule& schedule);

// The global-memory offsets alone, for kernels without tiles (the dot kernel): tg_gmem_a(p, m, k),
// tg_gmem_b(p, n, k) and tg_gmem_c(p, m, n), C in the launch's own orientation.
std::string emitGmemIndexFunctions(const scheduler::MatmulSchedule& schedule);

}  // namespace tilegrid::codegen
