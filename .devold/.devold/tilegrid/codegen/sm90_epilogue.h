#pragma once
// The epilogue of an sm_90a GEMM's consumer warpgroup (tilegrid/codegen/device/sm90_epilogue.cuh): its 64 x WN
// fp32 accumulators go to shared memory in double-buffered slabs (tg_smem_epilogue), then to C by TMA
// stores or, where C's rows are not 16-byte aligned, by predicated stores a row per warp. With
// swap_ab the kernel computes C^T and every slab is stored transposed. The host side decides, from
// the schedule's IR, which of the device code's variants apply.
#include "tilegrid/codegen/config_block.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::codegen {

// The epilogue's configuration values. `tma_store`: C's rows are 16-byte aligned, and TMA stores C.
void addSm90EpilogueConfig(const scheduler::MatmulSchedule& schedule, ConfigBlock& config);

}  // namespace tilegrid::codegen
