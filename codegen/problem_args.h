#pragma once
// The problem argument of a GEMM kernel (tg_problem, codegen/device/problem.cuh), filled on the host
// for one concrete problem of the kernel's configuration.
#include "scheduler/schedule.h"

namespace tilegrid::codegen {

#include "codegen/device/problem.cuh"

static_assert(sizeof(tg_problem) == 3 * 8 + 12 * 4, "tg_problem's layout is what the kernels read");

// The argument for `schedule`'s problem: its kernel problem's sizes, the leading dimensions and
// batch strides its kernel reads (the padded copies' where operands are padded) and its tile counts.
tg_problem problemArgs(const scheduler::MatmulSchedule& schedule);

}  // namespace tilegrid::codegen
