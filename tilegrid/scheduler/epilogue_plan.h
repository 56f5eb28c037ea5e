#pragma once
// What a problem's fused epilogue costs the kernel beyond storing C, as plan reports it: the operands it
// reads and writes, their bytes per output element, and what it holds in shared memory and registers.
// The kernels apply the epilogue in registers, in place over the accumulators, after the main loop
// (and after stream-K's partial sums are added): each thread reads the operands' elements at its own
// accumulators' positions from global memory (through L1 and L2) and stores aux beside them, except
// where sm_90 kernels move aux or c by TMA through slab buffers of their own (MatmulParams::auxSlab,
// cSlab), which then count in shared memory.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tilegrid/scheduler/params.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

struct EpilogueOperandUse {
  std::string name;   // bias[m], bias[n], c, residual, aux
  DType type = DType::BF16;
  bool written = false;  // aux
  // Bytes per output element: an M x N operand's element size; a vector's, shared by a row or column.
  double bytes_per_output = 0;
  bool by_tma = false;  // moved by TMA through slab buffers of its own
};

struct EpiloguePlan {
  std::string expression;  // the epilogue's text
  std::vector<EpilogueOperandUse> operands;
  // Shared memory the epilogue's operands take: their slab buffers (and c's full barriers) where TMA
  // moves them, else none.
  int64_t smem_bytes = 0;
  // Registers held across the main loop for them: none, they are read after it.
  int64_t registers_across_main_loop = 0;
  double bytesPerOutput() const;
  std::string toString() const;
};

// The plan of a validated problem's epilogue (empty operands for the identity).
EpiloguePlan planEpilogue(const MatmulProblem& problem);
// The same under the kernel's params: which operands go by TMA, and the shared memory they take.
EpiloguePlan planEpilogue(const MatmulProblem& problem, const MatmulParams& params);

void to_json(nlohmann::json& j, const EpiloguePlan& plan);

}  // namespace tilegrid::scheduler
