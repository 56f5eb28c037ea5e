#pragma once
// The problem argument of a GEMM kernel (tg_problem, tilegrid/codegen/device/problem.cuh), filled on the host
// for one concrete problem of the kernel's configuration.
#include "tilegrid/codegen/device/work_split.cuh"
#include "tilegrid/codegen/device/problem.cuh"
#include "tilegrid/scheduler/work_split.h"
#include "tilegrid/scheduler/schedule.h"

// No padding between fields (host and device share the definition; tail padding to 8 bytes only).
static_assert(sizeof(tg_epilogue_args) == (6 * 8 + 9 * 8 + 4 * 4 + 7) / 8 * 8, "tg_epilogue_args's layout is what the kernels read");
static_assert(sizeof(tg_problem) == (3 * 8 + 24 * 4 + sizeof(tg_work_split) + 7) / 8 * 8 + sizeof(tg_epilogue_args),
              "tg_problem's layout is what the kernels read");

namespace tilegrid::codegen {

// The argument for `schedule`'s problem launched on `clusters` clusters: its kernel problem's sizes,
// the leading dimensions and batch strides its kernel reads (the padded copies' where operands are
// padded), its tile counts and the split of its work units among those clusters.
tg_problem problemArgs(const scheduler::MatmulSchedule& schedule, int64_t clusters);

// The kernel's copy of a planned split (the plan's fields; the per-cluster ones are left 0).
tg_work_split kernelSplit(const scheduler::WorkSplit& split);

}  // namespace tilegrid::codegen
