#pragma once
// The sm_80 GEMM emitter: mma.sync m16n8k16, ldmatrix, a multi-stage cp.async pipeline, predicated
// edges for any M, N, K, narrower copies for misaligned operands, all four layouts.
#include <string>

#include "codegen/kernel_source.h"
#include "scheduler/schedule.h"

namespace tilegrid::codegen {

// e.g. tilegrid_sm80_bf16_tn_128x128x64_s4_smerge8m_4096x4096x4096
std::string kernelName(const scheduler::MatmulSchedule& schedule);

// Throws UserError if the schedule is not an sm_80 one or uses something this emitter lacks.
KernelSource emitSm80(const scheduler::MatmulSchedule& schedule);

}  // namespace tilegrid::codegen
