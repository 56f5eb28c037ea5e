#pragma once
// What the cuBLAS and cuBLASLt baselines share: the CUDA type of a dtype, status checks, and the
// check that a problem is one they can compute.
#include <cublas_api.h>
#include <library_types.h>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

cudaDataType_t cudaType(scheduler::DType t);

// Throws std::runtime_error naming `call` and cuBLAS's status unless it is CUBLAS_STATUS_SUCCESS
// (cuBLASLt returns the same status type).
void checkCublas(cublasStatus_t status, const char* call);

// Throws UserError unless `library` (cuBLAS or cuBLASLt) computes this problem: fp32 compute from
// bf16 into bf16 or fp32 and from fp16 into fp16 or fp32, sizes and leading dimensions in an int.
void checkCublasPair(const scheduler::MatmulProblem& p, const char* library);

}  // namespace tilegrid::runtime
