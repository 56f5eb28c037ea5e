#include "runtime/cublas_baseline.h"

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

#include "runtime/driver.h"

namespace tilegrid::runtime {
namespace {

void check(cublasStatus_t status, const char* call) {
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
  }
  return CUDA_R_32F;
}

}  // namespace

struct CublasGemm::Handle {
  cublasHandle_t handle = nullptr;
};

CublasGemm::CublasGemm() : handle_(std::make_unique<Handle>()) {
  currentDevice();  // the primary context cuBLAS's runtime will use too
  check(cublasCreate(&handle_->handle), "cublasCreate");
}

CublasGemm::~CublasGemm() {
  if (handle_ && handle_->handle) cublasDestroy(handle_->handle);
}

void CublasGemm::run(const scheduler::MatmulProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream) {
  currentDevice();
  check(cublasSetStream(handle_->handle, reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream");
  // cuBLAS is column-major: compute C^T (N x M, ld N) = op(B-role) * op(A-role), where a K-major
  // operand is already the transpose cuBLAS wants for A and the non-transposed one for B.
  const bool a_k_major = scheduler::majorOfA(p.layout) == scheduler::Major::K;
  const bool b_k_major = scheduler::majorOfB(p.layout) == scheduler::Major::K;
  const cublasOperation_t op_b = b_k_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = a_k_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const int64_t ld_b = b_k_major ? p.k : p.n;
  const int64_t ld_a = a_k_major ? p.k : p.m;
  const float alpha = 1.0f, beta = 0.0f;
  const int64_t bytes_in = scheduler::bytes(p.a_dtype), bytes_out = scheduler::bytes(p.out_dtype);
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    check(cublasGemmEx(handle_->handle, op_b, op_a, static_cast<int>(p.n), static_cast<int>(p.m),
                       static_cast<int>(p.k), &alpha,
                       reinterpret_cast<const void*>(b + static_cast<CUdeviceptr>(batch * p.n * p.k * bytes_in)),
                       cudaType(p.b_dtype), static_cast<int>(ld_b),
                       reinterpret_cast<const void*>(a + static_cast<CUdeviceptr>(batch * p.m * p.k * bytes_in)),
                       cudaType(p.a_dtype), static_cast<int>(ld_a), &beta,
                       reinterpret_cast<void*>(c + static_cast<CUdeviceptr>(batch * p.m * p.n * bytes_out)),
                       cudaType(p.out_dtype), static_cast<int>(p.n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }
}

}  // namespace tilegrid::runtime
