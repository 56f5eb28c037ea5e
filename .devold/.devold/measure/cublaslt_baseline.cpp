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

template <typename T>
void setAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value, const char* what) {
  checkCublas(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value)), what);
}

// Epilogue texts cuBLASLt's menu computes, with and without alpha, and its name for each.
struct LtEpilogue {
  const char* text;
  const char* name;
  cublasLtEpilogue_t kind;
};
constexpr LtEpilogue kLtEpilogues[] = {
    {"acc", "DEFAULT", CUBLASLT_EPILOGUE_DEFAULT},
    {"alpha * acc + beta * c", "DEFAULT", CUBLASLT_EPILOGUE_DEFAULT},
    {"acc + bias[n]", "BIAS", CUBLASLT_EPILOGUE_BIAS},
    {"alpha * acc + bias[n]", "BIAS", CUBLASLT_EPILOGUE_BIAS},
    {"relu(acc + bias[n])", "RELU_BIAS", CUBLASLT_EPILOGUE_RELU_BIAS},
    {"relu(alpha * acc + bias[n])", "RELU_BIAS", CUBLASLT_EPILOGUE_RELU_BIAS},
    {"gelu_tanh(acc + bias[n])", "GELU_BIAS", CUBLASLT_EPILOGUE_GELU_BIAS},
    {"gelu_tanh(alpha * acc + bias[n])", "GELU_BIAS", CUBLASLT_EPILOGUE_GELU_BIAS},
    {"gelu_tanh(acc + bias[n]); aux = acc + bias[n]", "GELU_AUX_BIAS", CUBLASLT_EPILOGUE_GELU_AUX_BIAS},
    {"gelu_tanh(alpha * acc + bias[n]); aux = alpha * acc + bias[n]", "GELU_AUX_BIAS", CUBLASLT_EPILOGUE_GELU_AUX_BIAS},
};

const LtEpilogue* ltEpilogueFor(const scheduler::MatmulProblem& p) {
  // cuBLASLt reads its bias and aux in the output's type.
  if (p.bias_dtype.value_or(p.out_dtype) != p.out_dtype || p.aux_dtype.value_or(p.out_dtype) != p.out_dtype ||
      p.c_in_dtype.value_or(p.out_dtype) != p.out_dtype) {
    return nullptr;
  }
  // Scales multiply the product before the epilogue (its A and B scale pointers or vectors); row
  // scale vectors have no batch stride there.
  if (p.scale == scheduler::ScaleMode::Row && p.batch > 1) return nullptr;
  // Block scales apply in the main loop: the epilogue is the menu's as written.
  const bool scaled_acc = p.scale == scheduler::ScaleMode::Tensor || p.scale == scheduler::ScaleMode::Row;
  for (const LtEpilogue& e : kLtEpilogues) {
    const ir::Epilogue menu = ir::Epilogue::parse(e.text);
    if ((scaled_acc ? ir::scaleAccumulator(menu) : menu) == p.epilogue) return &e;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> CublasLtGemm::epilogueFor(const scheduler::MatmulProblem& problem) {
  const LtEpilogue* e = ltEpilogueFor(problem);
  if (!e) return std::nullopt;
  if (!scheduler::isFp8(problem.a_dtype)) return std::string(e->name);
  return fmt::format("{} ({} x {}, scales {})", e->name, scheduler::toString(problem.a_dtype),
                     scheduler::toString(problem.b_dtype), scheduler::toString(problem.scale));
}

struct CublasLtGemm::State {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, c_in = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  const void* c_in_ptr = nullptr;  // the epilogue's c, or null to pass D
  cublasLtMatmulPreference_t preference = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> candidates;
  size_t chosen = 0;
  DeviceBuffer workspace;

  ~State() {
    if (preference) cublasLtMatmulPreferenceDestroy(preference);
    for (auto* l : {a, b, c, c_in})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (handle) cublasLtDestroy(handle);
  }
};

CublasLtGemm::CublasLtGemm(const scheduler::MatmulProblem& p, int candidates, size_t workspace_bytes,
                           const EpilogueArgs& epilogue)
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
  if (p.takesEpilogueArgs()) checkEpilogueArgs(p, epilogue);
  if (p.scale != scheduler::ScaleMode::None) {
    // Its A is our B (C^T = B^T A^T, above): B's scales go to its A, ours of A to its B. Block scales:
    // B's 128x128 blocks, A's 1x128 (ScaleMode::Block128's layouts are cuBLASLt's).
    const auto mode = [&](bool ours_of_a) -> int32_t {
      switch (p.scale) {
        case scheduler::ScaleMode::Row: return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
        case scheduler::ScaleMode::Block128:
          return ours_of_a ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
        default: return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
      }
    };
    setAttribute(s.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, mode(false), "cublasLtMatmulDescSetAttribute(A_SCALE_MODE)");
    setAttribute(s.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, mode(true), "cublasLtMatmulDescSetAttribute(B_SCALE_MODE)");
    setAttribute(s.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(epilogue.scale_b),
                 "cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)");
    setAttribute(s.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(epilogue.scale_a),
                 "cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)");
  }
  if (!p.epilogue.isIdentity()) {
    const LtEpilogue* e = ltEpilogueFor(p);
    TG_USER_CHECK(e != nullptr) << "cuBLASLt has no fused epilogue computing \"" << p.epilogue.toString()
                                << "\" with these operand types";
    setAttribute(s.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, e->kind, "cublasLtMatmulDescSetAttribute(EPILOGUE)");

    s.alpha = p.epilogueUses(ir::EpOp::Alpha) ? epilogue.alpha : 1.0f;
    if (p.epilogueUses(ir::EpOp::BiasN)) {
      setAttribute(s.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, epilogue.bias, "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
      setAttribute(s.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, cudaType(*p.bias_dtype),
                   "cublasLtMatmulDescSetAttribute(BIAS_DATA_TYPE)");
      setAttribute(s.desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, epilogue.bias_batch_stride,
                   "cublasLtMatmulDescSetAttribute(BIAS_BATCH_STRIDE)");
    }
    if (p.hasAux()) {
      const int64_t ld = epilogue.ld_aux ? epilogue.ld_aux : p.n;
      const int64_t stride = epilogue.aux_batch_stride ? epilogue.aux_batch_stride : ld * p.m;
      setAttribute(s.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, epilogue.aux,
                   "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_POINTER)");
      setAttribute(s.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, ld, "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_LD)");
      setAttribute(s.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, stride,
                   "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_BATCH_STRIDE)");
      setAttribute(s.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, cudaType(*p.aux_dtype),
                   "cublasLtMatmulDescSetAttribute(EPILOGUE_AUX_DATA_TYPE)");
    }
    if (p.epilogueUses(ir::EpOp::C)) {
      s.beta = epilogue.beta;
      s.c_in_ptr = epilogue.c;
      const int64_t ld = epilogue.ldc ? epilogue.ldc : p.n;
      s.c_in = layout(cudaType(*p.c_in_dtype), p.n, p.m, ld, p.batch,
                      epilogue.c_batch_stride ? epilogue.c_batch_stride : ld * p.m);
    }
  }
  checkCublas(cublasLtMatmulPreferenceCreate(&s.preference), "cublasLtMatmulPreferenceCreate");
  checkCublas(cublasLtMatmulPreferenceSetAttribute(s.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                             sizeof(workspace_bytes)),
        "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  s.candidates.resize(static_cast<size_t>(candidates));
  int found = 0;
  checkCublas(cublasLtMatmulAlgoGetHeuristic(s.handle, s.desc, s.a, s.b, s.c_in ? s.c_in : s.c, s.c, s.preference, candidates,
                                       s.candidates.data(), &found),
        "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt's heuristic has no algorithm for " + p.toString());
  s.candidates.resize(static_cast<size_t>(found));
  s.workspace = DeviceBuffer(workspace_bytes);
}

CublasLtGemm::~CublasLtGemm() = default;

void CublasLtGemm::run(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUstream stream) {
  State& s = *state_;
  const cublasLtMatmulHeuristicResult_t& r = s.candidates[s.chosen];
  const void* c_in = s.c_in_ptr ? s.c_in_ptr : reinterpret_cast<const void*>(c);
  checkCublas(cublasLtMatmul(s.handle, s.desc, &s.alpha, reinterpret_cast<const void*>(b), s.a, reinterpret_cast<const void*>(a),
                       s.b, &s.beta, c_in, s.c_in ? s.c_in : s.c, reinterpret_cast<void*>(c), s.c, &r.algo,
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
