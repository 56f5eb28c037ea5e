#pragma once
// The launch-time operands of a fused epilogue: checking what a caller passes (Gemm::run) and
// turning it into the kernel's tg_epilogue_args.
#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/runtime/gemm.h"

namespace tilegrid::scheduler {
struct MatmulSchedule;
}  // namespace tilegrid::scheduler

namespace tilegrid::runtime {

// Throws UserError where the epilogue's input c overlaps C (the output at `c_out`) other than as C
// itself, element for element (same address, leading dimension, batch stride and type), or where
// the schedule's kernel could read an element of c after storing C over it: an sm_90a tile whose
// width is not a whole number of epilogue slabs ends on a slab overlapping the one before, which
// reads its overlapped columns again.
void checkEpilogueAliasing(const scheduler::MatmulSchedule& schedule, const EpilogueArgs& args, const void* c_out);

// The kernel's copy of `args` for a validated problem with an epilogue (after checkEpilogueArgs):
// leading dimensions and batch strides filled in where 0 means packed.
tg_epilogue_args epilogueLaunchArgs(const MatmulProblem& problem, const EpilogueArgs& args);

}  // namespace tilegrid::runtime
