#pragma once
// The launch-time operands of a fused epilogue: checking what a caller passes (Gemm::run) and
// turning it into the kernel's tg_epilogue_args.
#include <optional>

#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/codegen/tensor_map_spec.h"
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

// The map a kernel stores the auxiliary output through (its slab boxes and swizzle, `kernel_map`),
// with the launch's leading dimension and batch stride (`args`, from epilogueLaunchArgs); none where
// TMA cannot store that aux: a pointer off 16 bytes, or rows or batch entries not whole 16-byte
// granules apart. The kernel's threads store it then (tg_epilogue_args::aux_by_tma).
std::optional<codegen::TensorMapSpec> auxTensorMap(const codegen::TensorMapSpec& kernel_map, const tg_epilogue_args& args);

}  // namespace tilegrid::runtime
