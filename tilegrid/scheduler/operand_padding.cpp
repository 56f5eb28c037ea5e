#include "tilegrid/scheduler/operand_padding.h"

#include <algorithm>
#include <bit>

#include "tilegrid/ir/check.h"

namespace tilegrid::scheduler {

int64_t granuleElems(DType type) { return 16 / bytes(type); }

int64_t paddedPitchElems(DType type, int64_t contiguous) {
  constexpr int64_t kLineBytes = 128, kGranuleBytes = 16;
  const int64_t row_bytes = contiguous * bytes(type);
  if (row_bytes > kLineBytes / 2) return ceilDiv(row_bytes, kLineBytes) * kLineBytes / bytes(type);
  const int64_t pitch_bytes = std::max<int64_t>(kGranuleBytes, std::bit_ceil(static_cast<uint64_t>(row_bytes)));
  return pitch_bytes / bytes(type);
}

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

MatmulProblem readThroughPadding(const MatmulProblem& problem) {
  const bool pad_a = operandMisaligned(problem, 'a'), pad_b = operandMisaligned(problem, 'b');
  MatmulProblem read = alignedByPadding(problem, pad_a, pad_b);
  if (pad_a) read.lda = paddedPitchElems(problem.a_dtype, problem.contiguousA()), read.stride_a = 0;
  if (pad_b) read.ldb = paddedPitchElems(problem.b_dtype, problem.contiguousB()), read.stride_b = 0;
  return read;
}

// The padded copy of A costs about as much as 200 / N of a GEMM running at 300 TFLOP/s (4 bytes an
// element of A at 3 TB/s, against 2 N flops an element), plus a launch. Narrower pieces slow the
// whole GEMM by 1.7-2.4x with 2- and 4-byte pieces, less with 8-byte ones (docs/findings.md, *sm_80
// kernels*). So the copy pays from an N of a few hundred for 2- and 4-byte pieces (break-even near
// 290 at 1.7x); 8-byte pieces lose less, so their bar is higher.
bool padPaysSm80(const MatmulProblem& problem, char operand) {
  if (!operandMisaligned(problem, operand)) return false;
  const int64_t align_bytes = (operand == 'a' ? problem.align_a * bytes(problem.a_dtype)
                                              : problem.align_b * bytes(problem.b_dtype));
  const int64_t reuse = operand == 'a' ? problem.n : problem.m;
  constexpr double kSmallestGemmFlops = 1e9;  // below, the copy's launch is a large share
  return problem.flops() >= kSmallestGemmFlops && reuse >= (align_bytes <= 2 ? 256 : align_bytes == 4 ? 512 : 1024);
}

}  // namespace tilegrid::scheduler
