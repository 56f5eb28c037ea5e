#pragma once
// The sm_90a GEMM emitter: TMA tile loads into a multi-stage mbarrier ring, wgmma from shared-memory
// descriptors, one producer and one or two consumer warpgroups with setmaxnreg, a persistent tile
// loop over the schedule's grid traversal, and predicated epilogue stores for any M and N.
#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::codegen {

// Throws UserError if the schedule is not an sm_90 one or asks for something this emitter lacks.
KernelSource emitSm90(const scheduler::MatmulSchedule& schedule);

}  // namespace tilegrid::codegen
