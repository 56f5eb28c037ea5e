#include "tilegrid/scheduler/operand_padding.h"

#include <algorithm>

#include "tilegrid/ir/check.h"

namespace tilegrid::scheduler {

int64_t granuleElems(DType type) { return 16 / bytes(type); }

int64_t paddedPitchElems(DType type, int64_t contiguous) {
  constexpr int64_t kLineBytes = 128;
  const int64_t line = kLineBytes / bytes(type);
  return ceilDiv(contiguous, line) * line;
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

std::vector<PadExtent> padExtents(const MatmulProblem& problem, bool pad_a, bool pad_b) {
  std::vector<PadExtent> copies;
  if (pad_a) {
    copies.push_back({majorOfA(problem.layout) == Major::K, problem.rowsA(), problem.contiguousA() * bytes(problem.a_dtype),
                      bytes(problem.a_dtype), problem.batch});
  }
  if (pad_b) {
    copies.push_back({majorOfB(problem.layout) == Major::K, problem.rowsB(), problem.contiguousB() * bytes(problem.b_dtype),
                      bytes(problem.b_dtype), problem.batch});
  }
  return copies;
}

int64_t padKBlocks(const std::vector<PadExtent>& copies) {
  TG_INTERNAL_CHECK(!copies.empty()) << "no padded copy";
  for (const PadExtent& c : copies) {
    TG_INTERNAL_CHECK(c.rows_per_batch >= 1 && c.batches >= 1 && c.row_bytes >= 1 && c.k() == copies.front().k())
        << "padded copy of " << c.batches << " x " << c.rows_per_batch << " rows of " << c.row_bytes << " bytes";
  }
  return (copies.front().k() + kPadBlockK - 1) / kPadBlockK;
}

bool padCountsFit(const std::vector<PadExtent>& copies) {
  if (copies.empty() || padKBlocks(copies) > kPadCountWords - 1) return false;
  // Blocks are numbered in an int.
  int64_t per_k_block = 0;
  for (const PadExtent& c : copies) per_k_block += c.batches * PadBlocks::acrossK(c);
  return per_k_block * padKBlocks(copies) <= kMaxExtent;
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
