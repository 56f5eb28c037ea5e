#pragma once
// cuBLASLt as a baseline: the same GEMM as CublasGemm (row-major C = A * B in the problem's layout,
// batches strided), with the algorithm a user tuning cuBLASLt would pick: the fastest of its
// heuristic's top candidates, each timed on the caller's buffers.
#include <cuda.h>

#include <memory>
#include <optional>
#include <string>

#include "tilegrid/runtime/gemm.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

class CublasLtGemm {
 public:
  // cuBLASLt's fused epilogue that computes the problem's (cublasLtEpilogue_t's name: "BIAS",
  // "RELU_BIAS", "GELU_BIAS", "GELU_AUX_BIAS", or "DEFAULT" for alpha * acc + beta * c), or nothing
  // where its menu has none. Its GELU is the tanh form (gelu_tanh); its bias runs along N. 8-bit
  // inputs' tensor and row scales are its A and B scales (scalars, or outer vectors); the name then
  // says the types and scales, "DEFAULT (e4m3 x e4m3, scales tensor)".
  static std::optional<std::string> epilogueFor(const scheduler::MatmulProblem& problem);

  // Sets up the descriptors for `problem` (validated) and asks the heuristic for up to
  // `candidates` algorithms with up to `workspace_bytes` of workspace. Throws std::runtime_error
  // with cuBLASLt's status if it has none. A problem with an epilogue takes its operands
  // (`epilogue`, alpha and beta included) and needs epilogueFor (UserError otherwise).
  explicit CublasLtGemm(const scheduler::MatmulProblem& problem, int candidates = 8,
                        size_t workspace_bytes = size_t{32} << 20, const EpilogueArgs& epilogue = {});
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
