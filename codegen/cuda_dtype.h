#pragma once
// How each dtype is spelled in generated CUDA: one table, read by every emitter.
#include "scheduler/problem.h"

namespace tilegrid::codegen {

struct CudaDType {
  const char* type;            // the element type: __nv_bfloat16
  const char* pair_type;       // two elements in one 4- or 8-byte word: __nv_bfloat162
  const char* from_float;      // fp32 -> the type, rounding to nearest even; empty for fp32 itself
  const char* pair_from_floats;  // two fp32 values -> pair_type
  const char* mma_type;        // the type as mma.sync and wgmma name an input operand; empty if it is none
};

const CudaDType& cudaDType(scheduler::DType t);

}  // namespace tilegrid::codegen
