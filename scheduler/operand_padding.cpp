#include "scheduler/operand_padding.h"

#include "ir/error.h"

namespace tilegrid::scheduler {

int64_t granuleElems(DType type) { return 16 / bytes(type); }

bool operandMisaligned(const MatmulProblem& problem, char operand) {
  TG_INTERNAL_CHECK(operand == 'a' || operand == 'b') << "operand '" << operand << "': a GEMM pads only A and B";
  return operand == 'a' ? problem.align_a < granuleElems(problem.a_dtype)
                        : problem.align_b < granuleElems(problem.b_dtype);
}

MatmulProblem alignedByPadding(const MatmulProblem& problem, bool pad_a, bool pad_b) {
  MatmulProblem aligned = problem;
  if (pad_a) aligned.align_a = granuleElems(problem.a_dtype);
  if (pad_b) aligned.align_b = granuleElems(problem.b_dtype);
  return aligned;
}

// The padded copy of A costs about as much as 200 / N of a GEMM running at 300 TFLOP/s (4 bytes an
// element of A at 3 TB/s, against 2 N flops an element), plus a launch. 2-byte gathers run the GEMM
// about 3x slower (4097x4097x4096 NT on an H100: 107 TFLOP/s against 311 with 16-byte copies), so
// the copy pays from N of a few hundred; 4- and 8-byte cp.async lose less, so the bar is higher.
bool padPaysSm80(const MatmulProblem& problem, char operand) {
  if (!operandMisaligned(problem, operand)) return false;
  const int64_t align = operand == 'a' ? problem.align_a : problem.align_b;
  const int64_t reuse = operand == 'a' ? problem.n : problem.m;
  constexpr double kSmallestGemmFlops = 1e9;  // below, the copy's launch is a large share
  return problem.flops() >= kSmallestGemmFlops && reuse >= (align == 1 ? 256 : 1024);
}

}  // namespace tilegrid::scheduler
