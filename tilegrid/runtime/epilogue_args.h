#pragma once
// The launch-time operands of a fused epilogue: checking what a caller passes (Gemm::run) and
// turning it into the kernel's tg_epilogue_args.
#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/runtime/gemm.h"

namespace tilegrid::runtime {

// The kernel's copy of `args` for a validated problem with an epilogue (after checkEpilogueArgs):
// leading dimensions and batch strides filled in where 0 means packed.
tg_epilogue_args epilogueLaunchArgs(const MatmulProblem& problem, const EpilogueArgs& args);

}  // namespace tilegrid::runtime
