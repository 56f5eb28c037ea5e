#pragma once
// A stand-alone kernel applying a problem's epilogue to C in place (templates/pointwise_epilogue.cu):
// what a GEMM without fusion needs after it, and the second half of the unfused pair that fused
// epilogues are measured against. Its arguments: C, M, N, batch, ldc, C's batch stride, and the
// epilogue's tg_epilogue_args.
#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::codegen {

// Elements a thread takes: 16 bytes of C where every row starts on a 16-byte boundary (from an
// aligned pointer: N, ldc and the batch stride multiples of 16 bytes), else 1.
int pointwiseVector(const scheduler::MatmulProblem& problem);

// The kernel for `problem` (validated, with an epilogue); the launch's grid is left for the caller
// (any grid covers the output: threads stride over it).
KernelSource emitPointwiseEpilogue(const scheduler::MatmulProblem& problem);

}  // namespace tilegrid::codegen
