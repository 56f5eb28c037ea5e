#pragma once
// A GEMM you can call: C = A * B (batched, any layout tilegrid schedules), on the current device.
//
//   tilegrid::MatmulProblem problem;           // M, N, K, dtypes, layout, leading dims, batch
//   problem.m = 4096; problem.n = 4096; problem.k = 4096;
//   tilegrid::matmul(problem, a, b, c, stream);   // one call: a cached Gemm and workspace
//
// or, holding the plan:
//
//   tilegrid::Gemm gemm(problem);              // schedules, emits, compiles (cached), loads
//   // workspace: gemm.workspaceSize() bytes, zeroed once before its first use
//   gemm.run(a, b, c, workspace, workspace_bytes, stream);
//
// Device pointers are plain addresses in the current device's memory (from cudaMalloc or
// cuMemAlloc); a stream is a CUstream or cudaStream_t (the same type), null for the legacy default
// stream. This header needs neither the CUDA headers nor Boost.
#include <cstddef>
#include <memory>
#include <optional>

#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/errors.h"
#include "tilegrid/scheduler/problem.h"

struct CUstream_st;

namespace tilegrid {
namespace scheduler {
struct MatmulSchedule;
struct ScheduleOverrides;
}  // namespace scheduler
namespace codegen {
struct KernelSource;
}  // namespace codegen

using scheduler::Arch;
using scheduler::DType;
using scheduler::Layout;
using scheduler::MatmulProblem;
using scheduler::ScaleMode;

// The operands of the problem's fused epilogue (MatmulProblem::epilogue), passed at each launch. Each
// is in the caller's terms, element (m, n) of a row-major M x N output, and of the element type the
// problem names (bias_dtype, c_in_dtype, residual_dtype, aux_dtype). Only what the epilogue reads
// (or, for aux, writes) is checked and used. The input c may be C itself (the same pointer, leading
// dimension, batch stride and type: C = alpha A B + beta C in place) where the kernel reads each element
// before storing it; Gemm::run refuses other overlaps, and tiles that would re-read stored columns.
struct EpilogueArgs {
  float alpha = 1.0f, beta = 0.0f;
  // bias[m] (M elements) or bias[n] (N); bias_batch_stride elements from one batch entry's vector to
  // the next, 0 for one vector shared by every entry.
  const void* bias = nullptr;
  int64_t bias_batch_stride = 0;
  // Matrices of C's shape: ld elements between rows (0: N), batch_stride between entries (0: ld * M).
  const void* c = nullptr;
  int64_t ldc = 0, c_batch_stride = 0;
  const void* residual = nullptr;
  int64_t ld_residual = 0, residual_batch_stride = 0;
  void* aux = nullptr;
  int64_t ld_aux = 0, aux_batch_stride = 0;
  // Scales of 8-bit inputs, fp32 (MatmulProblem::scale): with tensor scales one float each; with row
  // scales M floats for A's rows and N for B's columns, *_batch_stride elements from one batch
  // entry's vector to the next (0: one vector for every entry).
  const float* scale_a = nullptr;
  const float* scale_b = nullptr;
  int64_t scale_a_batch_stride = 0, scale_b_batch_stride = 0;
};

// What a Gemm is built for besides its problem.
struct GemmOptions {
  // The kernel family: sm_80 kernels run on any device from sm_80 on, sm_90 ones need an sm_90
  // device. Default: the current device's own.
  std::optional<Arch> arch;
  // Compile the problem's sizes into the kernel instead of reading them at launch (a kernel per
  // problem instead of one per configuration).
  bool specialize_shape = false;
  // Give the same bits on every launch of the same problem: stream-K's partial sums add up in an
  // order the plan fixes. By default pieces that share a small tile add their sums at L2 in the
  // order they arrive, which is faster there and may change the last bits of C from launch to launch.
  bool deterministic = false;
  // sm_90: compile the traversal's factor, the cluster size and C's orientation and stores into the
  // kernel (true) or read them at launch (false). Default: compiled in where M and N are at most
  // 2048 or one of them at most 64 (reading them costs every launch a fixed time, under a
  // microsecond).
  std::optional<bool> fixed_choices = std::nullopt;
  // sm_90: launch each kernel so that it starts while the kernel before it in the stream finishes
  // (programmatic dependent launch): its CTAs set up their shared memory under that kernel's tail
  // and wait for it to complete, its writes visible, before their first access to global memory.
  // GEMMs launched back to back then lose most of the gap between launches (about a microsecond
  // each, bench_gemm_chain). Off, each launch waits for the kernel before it as usual.
  bool overlap_prior_kernel = true;
};

// One GEMM problem, planned and compiled for the current device (device 0 of CUDA_VISIBLE_DEVICES,
// its primary context). A value: copies share the plan and the loaded kernel, which live as long as
// any copy does. Kernels of the same configuration are compiled once per process (and once per
// machine with TILEGRID_CACHE_DIR) and loaded once.
class Gemm {
 public:
  // Validates `problem` (throws UserError saying what is wrong), schedules it for the current device
  // and compiles its kernel. Throws NoDeviceError without a driver or device.
  explicit Gemm(const MatmulProblem& problem, const GemmOptions& options = {});
  // A schedule the caller chose (scheduler::schedule with overrides, a tuned traversal), planned for
  // the current device (runtime::currentDeviceSpec(); UserError otherwise); launched as
  // GemmOptions::overlap_prior_kernel says.
  explicit Gemm(const scheduler::MatmulSchedule& schedule, bool overlap_prior_kernel = true);

  // Bytes of scratch memory run() needs: stream-K's flags and partial sums (with an area of 1 MiB
  // where pieces of small problems accumulate theirs), and 16-byte aligned copies of operands whose
  // rows are not (0 where the kernel needs none). Zero the workspace once
  // before its first use: every kernel leaves it zeroed again, so Gemms may share one workspace as
  // long as their launches do not overlap (one stream) and no two threads call run() with it at
  // once (a call queues its operand copies and its kernel as separate launches).
  size_t workspaceSize() const;

  // Launches C = A * B on `stream`. Checks first, and throws UserError naming the operand, where a
  // pointer is null or less aligned than the problem promises (align_a/b/c; by default 16 bytes for
  // leading dimensions that are multiples of 8), or the workspace is null or smaller than
  // workspaceSize(). Allocates nothing, sets no memory and never synchronizes: the call returns
  // once the kernel is queued.
  // A problem with a fused epilogue takes its operands in `epilogue` (checked the same way, with
  // their leading dimensions and batch strides: UserError naming the operand).
  void run(const void* a, const void* b, void* c, void* workspace, size_t workspace_bytes,
           CUstream_st* stream = nullptr, const EpilogueArgs& epilogue = {}) const;

  // The problem as validated (alignments and leading dimensions filled in).
  const MatmulProblem& problem() const;
  // The plan and the generated CUDA, for inspection.
  const scheduler::MatmulSchedule& schedule() const;
  const codegen::KernelSource& source() const;

  struct State;

 private:
  std::shared_ptr<const State> state_;
};

// C = A * B for `problem` on `stream`: a Gemm from a process-wide cache keyed by the validated
// problem and the kernel family, and a workspace per stream that the cache owns. Thread-safe: calls
// from any number of threads build each Gemm once. Launches on one stream use its workspace in
// turn; a stream's workspace is kept for the life of the process (streams are told apart by handle,
// and the per-thread default stream by thread as well).
void matmul(const MatmulProblem& problem, const void* a, const void* b, void* c, CUstream_st* stream = nullptr,
            const GemmOptions& options = {}, const EpilogueArgs& epilogue = {});

namespace runtime {
// What Gemm::run checks of A, B and C (exposed for tests): throws UserError naming the operand if a
// pointer is null or less aligned than the validated `problem` promises.
void checkOperands(const MatmulProblem& problem, const void* a, const void* b, const void* c);
// What Gemm::run checks of the epilogue's operands: throws UserError naming the operand if one the
// epilogue reads or writes is null, not aligned to its element, or laid out with a leading dimension
// or batch stride too small for C's shape.
void checkEpilogueArgs(const MatmulProblem& problem, const EpilogueArgs& args);
}  // namespace runtime

}  // namespace tilegrid
