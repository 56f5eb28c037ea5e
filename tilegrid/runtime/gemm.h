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
  // kernel (true) or read them at launch (false). Default: compiled in for kernels modelled under
  // 20 us whose M and N are at most 2048, where reading them costs a launch 5% or more.
  std::optional<bool> fixed_choices = std::nullopt;
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
  // the current device (runtime::currentDeviceSpec(); UserError otherwise).
  explicit Gemm(const scheduler::MatmulSchedule& schedule);

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
  void run(const void* a, const void* b, void* c, void* workspace, size_t workspace_bytes,
           CUstream_st* stream = nullptr) const;

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
            const GemmOptions& options = {});

namespace runtime {
// What Gemm::run checks of A, B and C (exposed for tests): throws UserError naming the operand if a
// pointer is null or less aligned than the validated `problem` promises.
void checkOperands(const MatmulProblem& problem, const void* a, const void* b, const void* c);
}  // namespace runtime

}  // namespace tilegrid
