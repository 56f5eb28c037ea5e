#pragma once
// cuBLASLt as a baseline: the same GEMM as CublasGemm (row-major C = A * B in the problem's layout,
// batches strided), with the algorithm a user tuning cuBLASLt would pick: the fastest of its
// heuristic's top candidates, each timed on the caller's buffers.
#include <cuda.h>

#include <memory>
#include <string>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

class CublasLtGemm {
 public:
  // Sets up the descriptors for `problem` (validated) and asks the heuristic for up to
  // `candidates` algorithms with up to `workspace_bytes` of workspace. Throws std::runtime_error
  // with cuBLASLt's status if it has none.
  explicit CublasLtGemm(const scheduler::MatmulProblem& problem, int candidates = 8,
                        size_t workspace_bytes = size_t{32} << 20);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // Times every candidate (`iterations` runs each, after one untimed) on these buffers and keeps the
  // fastest; returns how many candidates there were.
  int chooseFastest(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream, int iterations = 20);
  // Runs C = A * B with the chosen candidate (the heuristic's first until chooseFastest).
  void run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream = nullptr);
  // "candidate i of n" of the chosen algorithm.
  std::string chosen() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tilegrid::runtime
