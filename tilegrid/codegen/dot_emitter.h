#pragma once
// The dot kernel of a schedule whose params choose it (scheduler::MatmulParams::dot):
// templates/dot_gemm.cu over the printed offsets of A, B and C and the problem's epilogue.
#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::codegen {

KernelSource emitDot(const scheduler::MatmulSchedule& schedule);

}  // namespace tilegrid::codegen
