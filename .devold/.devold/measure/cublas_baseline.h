#pragma once
// cuBLAS as the reference and the baseline: the same GEMM (row-major C = A * B in the problem's
// layout) through cublasGemmEx with fp32 compute.
#include <cuda.h>

#include <memory>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

class CublasGemm {
 public:
  CublasGemm();
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // Runs C = A * B for every batch entry. Throws std::runtime_error with cuBLAS's status on failure.
  void run(const scheduler::MatmulProblem& problem, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
           CUstream stream = nullptr);

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
};

}  // namespace tilegrid::runtime
