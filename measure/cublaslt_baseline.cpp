#include "measure/cublaslt_baseline.h"

#include <cublasLt.h>
#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "measure/cublas_types.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/driver.h"

namespace tilegrid::runtime {
namespace {

// A column-major layout of `rows` x `cols` (ld `ld`), `batch` of them `stride` elements apart.
cublasLtMatrixLayout_t layout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                              int64_t stride) {
  cublasLtMatrixLayout_t l = nullptr;
  checkCublas(cublasLtMatrixLayoutCreate(&l, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld),
        "cublasLtMatrixLayoutCreate");
  const int32_t count = static_cast<int32_t>(batch);
  checkCublas(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
        "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
  checkCublas(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
        "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  return l;
}

}  // namespace

struct CublasLtGemm::State {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> candidates;
  size_t chosen = 0;
  DeviceBuffer workspace;

  ~State() {
    if (preference) cublasLtMatmulPreferenceDestroy(preference);
    for (auto* l : {a, b, c})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (handle) cublasLtDestroy(handle);
  }
};

CublasLtGemm::CublasLtGemm(const scheduler::MatmulProblem& p, int candidates, size_t workspace_bytes)
    : state_(std::make_unique<State>()) {
  checkCublasPair(p, "cuBLASLt");
  currentDevice();
  State& s = *state_;
  checkCublas(cublasLtCreate(&s.handle), "cublasLtCreate");
  checkCublas(cublasLtMatmulDescCreate(&s.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  // Column-major, as CublasGemm: C^T (N x M) = op(B) * op(A), a K-major operand already being the
  // transpose the first slot wants and the plain matrix the second wants.
  const bool a_k_major = scheduler::majorOfA(p.layout) == scheduler::Major::K;
  const bool b_k_major = scheduler::majorOfB(p.layout) == scheduler::Major::K;
  const cublasOperation_t op_first = b_k_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = a_k_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  checkCublas(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof(op_first)),
        "cublasLtMatmulDescSetAttribute(TRANSA)");
  checkCublas(cublasLtMatmulDescSetAttribute(s.desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof(op_second)),
        "cublasLtMatmulDescSetAttribute(TRANSB)");
  s.a = b_k_major ? layout(cudaType(p.b_dtype), p.k, p.n, p.leadingDimB(), p.batch, p.batchStrideB())
                  : layout(cudaType(p.b_dtype), p.n, p.k, p.leadingDimB(), p.batch, p.batchStrideB());
  s.b = a_k_major ? layout(cudaType(p.a_dtype), p.k, p.m, p.leadingDimA(), p.batch, p.batchStrideA())
                  : layout(cudaType(p.a_dtype), p.m, p.k, p.leadingDimA(), p.batch, p.batchStrideA());
  s.c = layout(cudaType(p.out_dtype), p.n, p.m, p.leadingDimC(), p.batch, p.batchStrideC());
  checkCublas(cublasLtMatmulPreferenceCreate(&s.preference), "cublasLtMatmulPreferenceCreate");
  checkCublas(cublasLtMatmulPreferenceSetAttribute(s.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                             sizeof(workspace_bytes)),
        "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  s.candidates.resize(static_cast<size_t>(candidates));
  int found = 0;
  checkCublas(cublasLtMatmulAlgoGetHeuristic(s.handle, s.desc, s.a, s.b, s.c, s.c, s.preference, candidates,
                                       s.candidates.data(), &found),
        "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt's heuristic has no algorithm for " + p.toString());
  s.candidates.resize(static_cast<size_t>(found));
  s.workspace = DeviceBuffer(workspace_bytes);
}

CublasLtGemm::~CublasLtGemm() = default;

void CublasLtGemm::run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream) {
  State& s = *state_;
  const float alpha = 1.0f, beta = 0.0f;
  const cublasLtMatmulHeuristicResult_t& r = s.candidates[s.chosen];
  checkCublas(cublasLtMatmul(s.handle, s.desc, &alpha, reinterpret_cast<const void*>(b), s.a, reinterpret_cast<const void*>(a),
                       s.b, &beta, reinterpret_cast<const void*>(c), s.c, reinterpret_cast<void*>(c), s.c, &r.algo,
                       reinterpret_cast<void*>(s.workspace.ptr()), s.workspace.bytes(),
                       reinterpret_cast<cudaStream_t>(stream)),
        "cublasLtMatmul");
}

int CublasLtGemm::chooseFastest(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream, int iterations) {
  State& s = *state_;
  EventTimer timer;
  float best = 0;
  size_t fastest = 0;
  for (size_t i = 0; i < s.candidates.size(); ++i) {
    s.chosen = i;
    run(a, b, c, stream);
    timer.start(stream);
    for (int it = 0; it < iterations; ++it) run(a, b, c, stream);
    timer.stop(stream);
    const float ms = timer.elapsedMs();
    if (i == 0 || ms < best) best = ms, fastest = i;
  }
  s.chosen = fastest;
  return static_cast<int>(s.candidates.size());
}

std::string CublasLtGemm::chosen() const {
  return fmt::format("candidate {} of {}", state_->chosen + 1, state_->candidates.size());
}

}  // namespace tilegrid::runtime
