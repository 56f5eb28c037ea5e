#pragma once
// How each dtype is spelled in generated CUDA. Its conversions (from fp32, one value or a pair) are
// device code keyed by that type: tg_dtype<T> in tilegrid/codegen/device/dtype.cuh.
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::codegen {

// The element type: __nv_bfloat16, __half or float.
const char* cudaTypeName(scheduler::DType t);

}  // namespace tilegrid::codegen
