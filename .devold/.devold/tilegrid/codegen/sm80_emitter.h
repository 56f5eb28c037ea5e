#pragma once
// The sm_80 GEMM emitter: mma.sync m16n8k16, ldmatrix, a multi-stage cp.async pipeline, predicated
// edges for any M, N, K, narrower copies for misaligned operands, all four layouts.
#include <string>

#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::codegen {

// Throws UserError if the schedule is not an sm_80 one or uses something this emitter lacks.
KernelSource emitSm80(const scheduler::MatmulSchedule& schedule);

}  // namespace tilegrid::codegen
