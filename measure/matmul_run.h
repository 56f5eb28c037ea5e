#pragma once
// Running a generated GEMM on the GPU: random inputs, a launch, verification against a reference,
// and event timing next to cuBLAS in the same process. Part of tilegrid_measure (with the cuBLAS
// baselines and the grid sweep), which the CLI, benchmarks and tests link; the library does not.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/epilogue_operands.h"
#include "measure/l2_flush.h"
#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/runtime/launcher.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::runtime {

struct ErrorStats {
  double max_abs = 0;      // max |ours - ref|
  double max_rel = 0;      // max |ours - ref| / max |ref|
  double norm_rel = 0;     // ||ours - ref|| / ||ref||
  int64_t non_finite = 0;  // NaN or Inf in our output (poisoned elements never written, too)
  int64_t gap_writes = 0;  // elements between C's rows or batch entries that were written
  int64_t first_gap_write = -1;  // the first one's element offset in C, or -1
  bool passed = false;
  double tolerance = 0;    // the bound on norm_rel for this output dtype
  // A fused epilogue's auxiliary output against its reference (norm_rel; -1 where there is none).
  double aux_norm_rel = -1;
};

// The tolerance on ||ours - ref|| / ||ref|| for an output dtype: the output rounding dominates.
double tolerance(scheduler::DType out);
// The tolerance for an output of `out` elements computed from a problem's accumulator (C, or an
// auxiliary output): `out`'s, or with 8-bit inputs at least 2^-14 sqrt(K). Hopper's FP8 wgmma adds
// into an accumulator that keeps about 14 mantissa bits (DeepSeek-V3's report, 3.3.2), so each of
// the additions along K may lose 2^-14 of the running sum; as a random walk their errors grow as
// sqrt(K). It is the bound on fp16 and fp32 outputs of deep products, whose own rounding is finer.
double tolerance(const scheduler::MatmulProblem& problem, scheduler::DType out);
// The tolerance for a problem's C.
inline double tolerance(const scheduler::MatmulProblem& problem) { return tolerance(problem, problem.out_dtype); }
// Compares two host buffers of `out` elements, against `tolerance` where given (else `out`'s).
ErrorStats compareOutputs(const std::vector<float>& ours, const std::vector<float>& reference, scheduler::DType out,
                          double tolerance = 0);
// C = A * B in fp64 on the host from the decoded inputs (their whole spans, with the problem's
// leading dimensions and batch strides), as dense floats (batch x M x N), on every core (still slow
// for large problems: 4096^3 takes minutes).
std::vector<float> referenceGemm(const scheduler::MatmulProblem& problem, const std::vector<float>& a,
                                 const std::vector<float>& b);

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double tflops = 0;  // at the median
};

// Medians over `ms`; `flops` per run gives the rate.
TimingStats summarizeTimes(std::vector<float> ms, double flops);

// How long timeInTurns times: at least `turns` turns, and, where `seconds` > 0, at least that many
// seconds of wall time too, but never more than `max_turns`.
struct TurnBudget {
  int turns = 20;
  double seconds = 0;
  int max_turns = 0;  // 0: `turns`
};

// `warmup` untimed runs of each launch, then turns as `budget` says. In a turn every launch runs
// once, each timed with events after an L2 flush, and each turn starts one launch further on than
// the one before: no launch always runs first, or always right after the same other one, so the
// card's warming and power limiting in a long run fall on all of them alike. Returns each launch's
// milliseconds, in `launches` order. `after_turn(t)` is called after turn t (0-based), when given.
std::vector<std::vector<float>> timeInTurns(const std::vector<std::function<void()>>& launches, int warmup,
                                            const TurnBudget& budget, L2Flusher& flusher, CUstream stream,
                                            const std::function<void(int)>& after_turn = {});

// C's elements, dense (batch x M x N), out of its span (`problem`'s leading dimension and stride).
std::vector<float> denseC(const scheduler::MatmulProblem& problem, const std::vector<float>& span);

enum class Reference { Cublas, CpuFp64 };

// Another kernel for the same problem, checked and timed in the same turns as ours (an A/B).
struct Alternative {
  const scheduler::MatmulSchedule* schedule = nullptr;
  const codegen::KernelSource* source = nullptr;
};

struct AlternativeResult {
  std::string kernel_name;
  std::optional<ErrorStats> errors;
  std::optional<TimingStats> time;
};

struct RunResult {
  std::string kernel_name;
  std::optional<ErrorStats> errors;  // against the reference, when checked
  std::optional<TimingStats> ours;
  std::optional<TimingStats> cublas;
  std::vector<AlternativeResult> alternatives;  // RunOptions::alternatives, in order
  // A problem with a fused epilogue, timed with cuBLAS: its plain product (cublas, the bound a fused
  // epilogue approaches), the unfused pair (that product, then the epilogue as a pointwise kernel
  // over C), and cuBLASLt's fused epilogue where its menu has this one (checked like ours).
  std::optional<TimingStats> unfused_pair;
  std::optional<std::string> cublaslt_epilogue;
  // Where cuBLASLt's menu has the epilogue but its heuristic has no algorithm for these types,
  // scales or epilogue (FP8 with both inputs e5m2, say): its refusal, and nothing of it is timed.
  std::optional<std::string> cublaslt_refused;
  std::optional<ErrorStats> cublaslt_errors;
  std::optional<TimingStats> cublaslt_fused;
};

struct RunOptions {
  bool check = true;
  int iterations = 20;  // timed runs each; 0 skips timing
  int warmup = 3;
  uint64_t seed = 2026;
  Reference reference = Reference::Cublas;
  bool time_cublas = true;
  // Kernels for the same problem (the caller's schedules for it) to check and time beside ours.
  std::vector<Alternative> alternatives;
  // How the L2 is evicted before each timed launch (measure/l2_flush.h).
  L2Flush flush = L2Flush::Write;
};

class MatmulLaunch;
struct MatmulBuffers;
// C = A * B computed by cuBLAS from `buffers`' inputs, decoded to dense floats; with the problem's
// epilogue applied on the host (to cuBLAS's fp32 product) where it has one. The epilogue's auxiliary
// output goes to `aux`.
std::vector<float> cublasReference(const MatmulBuffers& buffers, CUstream stream, std::vector<float>* aux = nullptr);
// Poisons C's span (every element must be written, no gap between its rows or batch entries), launches
// once and compares C with the dense `reference` (and the epilogue's auxiliary output with `aux_reference`).
ErrorStats checkLaunch(MatmulLaunch& launch, MatmulBuffers& buffers, const std::vector<float>& reference,
                       CUstream stream, const std::vector<float>& aux_reference = {});

// Compiles (cached), launches and, as asked, checks and times `source` for `schedule`'s problem.
RunResult runMatmul(const scheduler::MatmulSchedule& schedule, const codegen::KernelSource& source,
                    const RunOptions& options);

// The inputs and output of one problem on the device, A and B filled with random values (every
// element of their spans, the gaps between rows and batch entries included).
struct MatmulBuffers {
  scheduler::MatmulProblem problem;
  DeviceBuffer a, b, c;
  EpilogueBuffers epilogue;  // what the problem's epilogue reads and writes
  MatmulBuffers(const scheduler::MatmulProblem& problem, uint64_t seed);
};

// A GEMM's operands in the caller's device memory: A, B and C as `problem` lays them out (dense,
// batches one after another).
struct MatmulOperands {
  CUdeviceptr a = 0, b = 0, c = 0;
  EpilogueArgs epilogue;
};

// A Gemm bound to its operands and a workspace of its own (zeroed once): build once, launch many
// times.
class MatmulLaunch {
 public:
  // The Gemm's problem over `buffers` (which must hold that problem).
  MatmulLaunch(Gemm gemm, MatmulBuffers& buffers);
  // The caller's memory, checked by checkOperands against the Gemm's problem.
  MatmulLaunch(Gemm gemm, const MatmulOperands& operands);
  void operator()(CUstream stream = nullptr);
  const Gemm& gemm() const { return gemm_; }
  // The scratch memory the kernel asked for (stream-K's flags and partial sums, padded copies), or null.
  const DeviceBuffer* workspace() const { return workspace_ ? &*workspace_ : nullptr; }

 private:
  Gemm gemm_;
  MatmulOperands operands_;
  std::optional<DeviceBuffer> workspace_;
};

}  // namespace tilegrid::runtime
