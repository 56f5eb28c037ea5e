#include "measure/cublas_baseline.h"

#include "measure/cublas_types.h"

#include <cublas_v2.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/driver.h"

namespace tilegrid::runtime {

void checkCublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
  }
}

cudaDataType_t cudaType(scheduler::DType t) {
  switch (t) {
    case scheduler::DType::BF16: return CUDA_R_16BF;
    case scheduler::DType::FP16: return CUDA_R_16F;
    case scheduler::DType::FP32: return CUDA_R_32F;
    case scheduler::DType::E4M3: return CUDA_R_8F_E4M3;
    case scheduler::DType::E5M2: return CUDA_R_8F_E5M2;
  }
  return CUDA_R_32F;
}

void checkCublasPair(const scheduler::MatmulProblem& p, const char* library) {
  // 8-bit inputs go to cuBLASLt only, which writes any 16-bit or fp32 C from them.
  TG_USER_CHECK(p.out_dtype == scheduler::DType::FP32 || p.out_dtype == p.a_dtype || scheduler::isFp8(p.a_dtype))
      << library << " has no " << scheduler::toString(p.a_dtype) << " -> " << scheduler::toString(p.out_dtype)
      << " GEMM to check or time against: it writes " << scheduler::toString(p.a_dtype)
      << " or fp32 from these inputs (use --out-dtype " << scheduler::toString(p.a_dtype) << " or fp32, or --no-check)";
  // The 32-bit API takes sizes and leading dimensions as int; strides are 64-bit.
  for (const int64_t size : {p.m, p.n, p.k, p.batch, p.leadingDimA(), p.leadingDimB(), p.leadingDimC()}) {
    TG_USER_CHECK(size <= std::numeric_limits<int>::max())
        << library << " takes sizes and leading dimensions as int: " << p.toString() << " has " << size;
  }
}

struct CublasGemm::Handle {
  cublasHandle_t handle = nullptr;
};

CublasGemm::CublasGemm() : handle_(std::make_unique<Handle>()) {
  currentDevice();  // the primary context cuBLAS's runtime will use too
  checkCublas(cublasCreate(&handle_->handle), "cublasCreate");
}

CublasGemm::~CublasGemm() {
  if (handle_ && handle_->handle) cublasDestroy(handle_->handle);
}

void CublasGemm::run(const scheduler::MatmulProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream) {
  TG_USER_CHECK(!scheduler::isFp8(p.a_dtype))
      << "cuBLAS's GEMM (cublasGemmEx) takes no 8-bit floats: " << p.toString() << " is timed against cuBLASLt";
  checkCublasPair(p, "cuBLAS");
  currentDevice();
  checkCublas(cublasSetStream(handle_->handle, reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream");
  // cuBLAS is column-major: compute C^T (N x M, ld ldc) = op(B-role) * op(A-role), where a K-major
  // operand is already the transpose cuBLAS wants for A and the non-transposed one for B. Batches
  // go in one strided-batched call, as a user of cuBLAS would make it.
  const bool a_k_major = scheduler::majorOfA(p.layout) == scheduler::Major::K;
  const bool b_k_major = scheduler::majorOfB(p.layout) == scheduler::Major::K;
  const cublasOperation_t op_b = b_k_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = a_k_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const float alpha = 1.0f, beta = 0.0f;
  // cuBLAS takes sizes and leading dimensions as int; MatmulProblem::validate() bounds them so.
  constexpr int64_t kIntMax = 2147483647;
  TG_INTERNAL_CHECK(p.m <= kIntMax && p.n <= kIntMax && p.k <= kIntMax && p.batch <= kIntMax &&
                    p.leadingDimA() <= kIntMax && p.leadingDimB() <= kIntMax && p.leadingDimC() <= kIntMax)
      << "an unvalidated problem reached cuBLAS: " << p.toString();
  checkCublas(cublasGemmStridedBatchedEx(
            handle_->handle, op_b, op_a, static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), &alpha,
            reinterpret_cast<const void*>(b), cudaType(p.b_dtype), static_cast<int>(p.leadingDimB()), p.batchStrideB(),
            reinterpret_cast<const void*>(a), cudaType(p.a_dtype), static_cast<int>(p.leadingDimA()), p.batchStrideA(),
            &beta, reinterpret_cast<void*>(c), cudaType(p.out_dtype), static_cast<int>(p.leadingDimC()),
            p.batchStrideC(), static_cast<int>(p.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx");
}

}  // namespace tilegrid::runtime
