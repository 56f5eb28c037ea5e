// Every cuBLASLt configuration of one bf16 GEMM (row-major C[M,N] = A[M,K] B[N,K]^T, issue #5's TN),
// timed on this GPU, with the kernel each one launches. It answers what NVIDIA's own kernels reach
// here, in particular its best mma.sync kernel (names without gmma/wgmma/nvjet), which is the fair
// roof for our sm_80 family on a Hopper card.
//
// For each of the heuristic's candidates (up to 64), and each algo id, tile, stage count and CTA
// swizzle that cublasLtMatmulAlgoCheck accepts: the kernel names (from a stream capture of one call: its graph's kernel nodes) and the median of 15
// event-timed runs, each after an L2 flush, in one process with cuBLAS's heuristic default.
//
// Build: nvcc -O3 -arch=sm_90 -o cublaslt_algos cublaslt_algos.cu -lcublasLt -lcuda
// Usage: cublaslt_algos M N K > table.csv    (summary on stderr)
#include <cublasLt.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// Stops the program with the call, where it was and what it returned when `ok` is false.
void require(bool ok, const char* call, const char* file, int line, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "%s:%d %s: %s\n", file, line, call, what);
  std::exit(1);
}
#define CHECK_CUDA(x)                                                                      \
  do {                                                                                     \
    const cudaError_t e_ = (x);                                                            \
    require(e_ == cudaSuccess, #x, __FILE__, __LINE__, cudaGetErrorString(e_));            \
  } while (0)
#define CHECK_LT(x)                                                                        \
  do {                                                                                     \
    const cublasStatus_t s_ = (x);                                                         \
    require(s_ == CUBLAS_STATUS_SUCCESS, #x, __FILE__, __LINE__, cublasLtGetStatusString(s_)); \
  } while (0)

__global__ void fill_random(__nv_bfloat16* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = __float2bfloat16(float(h & 0xffff) / 32768.0f - 1.0f);
  }
}

struct Problem {
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t a, b, c;
  const void *pa, *pb;
  void* pc;
  void* workspace;
  size_t workspace_bytes;
  void* flush;
  size_t flush_bytes;
  cudaStream_t stream;
};

bool run(const Problem& p, const cublasLtMatmulAlgo_t* algo) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(p.lt, p.op, &alpha, p.pa, p.a, p.pb, p.b, &beta, p.pc, p.c, p.pc, p.c, algo, p.workspace,
                        p.workspace_bytes, p.stream) == CUBLAS_STATUS_SUCCESS;
}

// Names of the kernels one call launches, from a stream capture.
std::string kernel_names(const Problem& p, const cublasLtMatmulAlgo_t* algo) {
  CHECK_CUDA(cudaStreamBeginCapture(p.stream, cudaStreamCaptureModeThreadLocal));
  const bool ok = run(p, algo);
  cudaGraph_t graph = nullptr;
  CHECK_CUDA(cudaStreamEndCapture(p.stream, &graph));
  if (!ok || graph == nullptr) return "?";
  size_t count = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count));
  std::string names;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    CHECK_CUDA(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeKernel) continue;
    CUDA_KERNEL_NODE_PARAMS params{};
    const char* name = nullptr;
    if (cuGraphKernelNodeGetParams(reinterpret_cast<CUgraphNode>(node), &params) == CUDA_SUCCESS) {
      if (params.func != nullptr) cuFuncGetName(&name, params.func);
      if (name == nullptr && params.kern != nullptr) cuKernelGetName(&name, params.kern);
    }
    if (!names.empty()) names += " + ";
    names += name != nullptr ? name : "?";
  }
  cudaGraphDestroy(graph);
  return names;
}

// Median milliseconds of `reps` event-timed calls, each after an L2 flush; negative if a call fails.
double median_ms(const Problem& p, const cublasLtMatmulAlgo_t* algo, int reps) {
  for (int i = 0; i < 3; ++i)
    if (!run(p, algo)) return -1;
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    CHECK_CUDA(cudaMemsetAsync(p.flush, i, p.flush_bytes, p.stream));
    CHECK_CUDA(cudaEventRecord(start, p.stream));
    run(p, algo);
    CHECK_CUDA(cudaEventRecord(stop, p.stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float t = 0;
    CHECK_CUDA(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (cudaGetLastError() != cudaSuccess) return -1;
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

template <typename T>
std::vector<T> cap_array(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  size_t bytes = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS || bytes == 0)
    return {};
  std::vector<T> v(bytes / sizeof(T));
  cublasLtMatmulAlgoCapGetAttribute(&algo, attr, v.data(), bytes, &bytes);
  return v;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s M N K\n", argv[0]);
    return 2;
  }
  const long m = std::atol(argv[1]), n = std::atol(argv[2]), k = std::atol(argv[3]);
  CHECK_CUDA(cudaFree(nullptr));
  Problem p{};
  CHECK_CUDA(cudaStreamCreate(&p.stream));
  __nv_bfloat16 *a, *b, *c;
  CHECK_CUDA(cudaMalloc(&a, m * k * 2));
  CHECK_CUDA(cudaMalloc(&b, n * k * 2));
  CHECK_CUDA(cudaMalloc(&c, m * n * 2));
  fill_random<<<1024, 256>>>(a, m * k, 1);
  fill_random<<<1024, 256>>>(b, n * k, 2);
  p.workspace_bytes = size_t(64) << 20;
  p.flush_bytes = size_t(256) << 20;
  CHECK_CUDA(cudaMalloc(&p.workspace, p.workspace_bytes));
  CHECK_CUDA(cudaMalloc(&p.flush, p.flush_bytes));
  CHECK_LT(cublasLtCreate(&p.lt));
  // Column-major view of the row-major problem: C^T (N x M) = B (N x K, stored K x N) ^T * A^T (K x M).
  CHECK_LT(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
  CHECK_LT(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)));
  CHECK_LT(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof(nop)));
  CHECK_LT(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, k, n, k));
  CHECK_LT(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, k, m, k));
  CHECK_LT(cublasLtMatrixLayoutCreate(&p.c, CUDA_R_16BF, n, m, n));
  p.pa = b;
  p.pb = a;
  p.pc = c;
  const double flops = 2.0 * m * n * k;
  auto tflops = [&](double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; };
  const int reps = 15;

  // cuBLAS's own pick, as tilegrid's benchmarks time it.
  cublasLtMatmulPreference_t pref;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &p.workspace_bytes,
                                                sizeof(p.workspace_bytes)));
  cublasLtMatmulHeuristicResult_t best{};
  int found = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(p.lt, p.op, p.a, p.b, p.c, p.c, pref, 1, &best, &found));
  const std::string default_name = found ? kernel_names(p, &best.algo) : "none";
  const double default_ms = found ? median_ms(p, &best.algo, reps) : -1;
  std::printf("algo,tile,stages,swizzle,waves,ms,tflops,kernels\n");
  std::printf("default,,,,%.2f,%.5f,%.1f,%s\n", best.wavesCount, default_ms, tflops(default_ms), default_name.c_str());

  // Every candidate the heuristic offers (the Hopper kernels are reachable only this way).
  std::vector<cublasLtMatmulHeuristicResult_t> offered(64);
  int offered_count = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(p.lt, p.op, p.a, p.b, p.c, p.c, pref, int(offered.size()), offered.data(),
                                          &offered_count));
  struct Row {
    double tflops;
    std::string line, names;
  };
  std::vector<Row> rows;
  for (int i = 0; i < offered_count; ++i) {
    const std::string names = kernel_names(p, &offered[i].algo);
    const double ms = median_ms(p, &offered[i].algo, reps);
    if (ms <= 0) continue;
    char line[256];
    std::snprintf(line, sizeof(line), "heuristic %d,,,,%.2f,%.5f,%.1f,", i, offered[i].wavesCount, ms, tflops(ms));
    rows.push_back({tflops(ms), std::string(line) + names, names});
    std::printf("%s\n", rows.back().line.c_str());
  }

  int ids[512], id_count = 0;
  CHECK_LT(cublasLtMatmulAlgoGetIds(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
                                    CUDA_R_16BF, 512, ids, &id_count));
  int checked = 0;
  for (int i = 0; i < id_count; ++i) {
    cublasLtMatmulAlgo_t algo;
    if (cublasLtMatmulAlgoInit(p.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
                               CUDA_R_16BF, ids[i], &algo) != CUBLAS_STATUS_SUCCESS)
      continue;
    std::vector<uint32_t> tiles = cap_array<uint32_t>(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
    std::vector<uint32_t> stages = cap_array<uint32_t>(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
    if (tiles.empty()) tiles.push_back(CUBLASLT_MATMUL_TILE_UNDEFINED);
    if (stages.empty()) stages.push_back(CUBLASLT_MATMUL_STAGES_UNDEFINED);
    int32_t swizzle_support = 0;
    size_t written = 0;
    cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swizzle_support,
                                      sizeof(swizzle_support), &written);
    for (uint32_t tile : tiles)
      for (uint32_t stage : stages)
        for (uint32_t swizzle = 0; swizzle <= (swizzle_support ? 1u : 0u); ++swizzle) {
          cublasLtMatmulAlgo_t cfg = algo;
          cublasLtMatmulAlgoConfigSetAttribute(&cfg, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile));
          cublasLtMatmulAlgoConfigSetAttribute(&cfg, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stage, sizeof(stage));
          cublasLtMatmulAlgoConfigSetAttribute(&cfg, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof(swizzle));
          const int32_t split = 1;
          cublasLtMatmulAlgoConfigSetAttribute(&cfg, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split, sizeof(split));
          cublasLtMatmulHeuristicResult_t result{};
          ++checked;
          if (cublasLtMatmulAlgoCheck(p.lt, p.op, p.a, p.b, p.c, p.c, &cfg, &result) != CUBLAS_STATUS_SUCCESS)
            continue;
          if (result.workspaceSize > p.workspace_bytes) continue;
          const std::string names = kernel_names(p, &cfg);
          const double ms = median_ms(p, &cfg, reps);
          if (ms <= 0) continue;
          char line[256];
          std::snprintf(line, sizeof(line), "%d,%u,%u,%u,%.2f,%.5f,%.1f,", ids[i], tile, stage, swizzle,
                        result.wavesCount, ms, tflops(ms));
          rows.push_back({tflops(ms), std::string(line) + names, names});
          std::printf("%s\n", rows.back().line.c_str());
          std::fflush(stdout);
        }
  }
  // The summary: the default, then the fastest configuration of each kernel family.
  std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.tflops > y.tflops; });
  auto is_wgmma = [](const std::string& s) {
    return s.find("gmma") != std::string::npos || s.find("nvjet") != std::string::npos ||
           s.find("wgmma") != std::string::npos;
  };
  std::fprintf(stderr, "%ld x %ld x %ld bf16 TN: %d heuristic candidates, %d configurations checked, %zu ran\n", m,
               n, k, offered_count, checked, rows.size());
  std::fprintf(stderr, "default          %7.1f TFLOP/s  %s\n", tflops(default_ms), default_name.c_str());
  int shown_w = 0, shown_s = 0;
  for (const Row& r : rows) {
    const bool w = is_wgmma(r.names);
    if (w ? shown_w++ >= 3 : shown_s++ >= 5) continue;
    std::fprintf(stderr, "%s %7.1f TFLOP/s  %s\n", w ? "best wgmma     " : "best non-wgmma ", r.tflops,
                 r.names.c_str());
  }
  return 0;
}
