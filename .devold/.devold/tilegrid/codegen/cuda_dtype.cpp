#include "tilegrid/codegen/cuda_dtype.h"

#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {

const char* cudaTypeName(scheduler::DType t) {
  switch (t) {
    case scheduler::DType::BF16: return "__nv_bfloat16";
    case scheduler::DType::FP16: return "__half";
    case scheduler::DType::FP32: return "float";
    case scheduler::DType::E4M3: return "tg_e4m3";
    case scheduler::DType::E5M2: return "tg_e5m2";
  }
  TG_INTERNAL_ERROR() << "a dtype without a CUDA spelling";
  return "float";
}

}  // namespace tilegrid::codegen
