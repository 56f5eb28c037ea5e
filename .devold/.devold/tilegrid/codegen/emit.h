#pragma once
#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::codegen {

// The kernel for a schedule, from the emitter of its arch.
KernelSource emit(const scheduler::MatmulSchedule& schedule);

}  // namespace tilegrid::codegen
