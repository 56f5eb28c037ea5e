#include "codegen/cuda_dtype.h"

#include "ir/error.h"

namespace tilegrid::codegen {

const CudaDType& cudaDType(scheduler::DType t) {
  static constexpr CudaDType kBf16{"__nv_bfloat16", "__nv_bfloat162", "__float2bfloat16_rn", "__floats2bfloat162_rn",
                                   "bf16"};
  static constexpr CudaDType kFp16{"__half", "__half2", "__float2half_rn", "__floats2half2_rn", "f16"};
  static constexpr CudaDType kFp32{"float", "float2", "", "make_float2", ""};
  switch (t) {
    case scheduler::DType::BF16: return kBf16;
    case scheduler::DType::FP16: return kFp16;
    case scheduler::DType::FP32: return kFp32;
  }
  TG_INTERNAL_ERROR() << "a dtype without a CUDA spelling";
  return kFp32;
}

}  // namespace tilegrid::codegen
