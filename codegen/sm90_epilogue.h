#pragma once
// The epilogue of an sm_90a GEMM's consumer warpgroup: its 64 x WN fp32 accumulators go to shared
// memory in double-buffered slabs (tg_smem_epilogue), then to C by TMA stores or, where C's rows are
// not 16-byte aligned, by predicated stores a row per warp. With swap_ab the kernel computes C^T and
// every slab is stored transposed.
#include <string>

#include "scheduler/schedule.h"

namespace tilegrid::codegen {

// The epilogue code for the kernel template (one tile, after the main loop and any stream-K sums).
// `tma_store`: C's rows are 16-byte aligned and the kernel takes tmap_c; `batched`: 3D stores.
std::string sm90EpilogueCode(const scheduler::MatmulSchedule& schedule, bool tma_store, bool batched);

}  // namespace tilegrid::codegen
