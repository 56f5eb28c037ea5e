// sm_90 problems whose misaligned operands the scheduler reads in row classes (row_classes.h): each
// way classes permute a tile (M, N, K), beside padded copies, clusters, stream-K, C^T, fused
// epilogues and 8-bit inputs.
#include "support/gemm_cases.h"

namespace tilegrid::testing {

std::vector<GemmCase> sm90RowClassCases() {
  using scheduler::DType;
  using scheduler::Layout;
  struct Row {
    int64_t m, n, k;
    Layout layout;
    int64_t lda = 0, ldb = 0, ldc = 0;  // 0: packed
    const char* epilogue = nullptr;
    DType in = DType::BF16;
  };
  const Row rows[] = {
      // Both K-major: A's rows (M) and B's (N) in classes, C's columns odd too; clusters, stream-K.
      {4095, 4097, 259, Layout::TN},
      {1001, 515, 257, Layout::TN},
      // Both MN-major: K in classes, with a K tail of every length mod 8.
      {1001, 515, 257, Layout::NT},
      {641, 704, 1003, Layout::NT},
      {96, 4104, 64, Layout::NT, 100, 4104},  // one of the two misaligned: both still classed
      {1, 2048, 1024, Layout::NT, 3},          // decode's strided column: K classes, 8-wide tiles
      // One K-major operand beside an MN-major one: the K-major one in classes, the other padded.
      {777, 640, 333, Layout::NN},
      {640, 777, 333, Layout::TT},
      // Rows aligned but pointers' promise and leading dimensions odd; narrow N turns to C^T.
      {3000, 40, 1111, Layout::TN, 1113, 1115, 41},
      {64, 3000, 515, Layout::TN, 517, 519},
      // A fused epilogue: A in classes (rows permuted), B padded (its pairs of columns).
      {1000, 1030, 259, Layout::TN, 0, 0, 0, "relu(acc + bias[m]); aux = acc + bias[m]"},
      {1000, 1030, 259, Layout::TN, 0, 0, 0, "alpha*acc + beta*c"},
      // 8-bit inputs with even leading dimensions off 16 bytes.
      {1000, 1000, 1026, Layout::TN, 0, 0, 0, nullptr, DType::E4M3},
  };
  std::vector<GemmCase> cases;
  for (const Row& r : rows) {
    GemmCase c;
    const DType out = DType::BF16;
    // (Given alignments keep the layout as written, then the strides derive them again.)
    c.problem = makeProblem(r.m, r.n, r.k, r.layout, r.in, out, 1, 1);
    c.problem = withStrides(c.problem, r.lda, r.ldb, r.ldc, 0, 0, 0);
    if (r.epilogue) {
      c.problem.epilogue = ir::Epilogue::parse(r.epilogue);
      c.problem.validate();
    }
    if (scheduler::isFp8(r.in)) {
      c.problem.scale = scheduler::ScaleMode::Tensor;
      c.problem.validate();
    }
    c.overrides.arch = scheduler::Arch::Sm90;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace tilegrid::testing
