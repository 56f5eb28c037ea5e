#include "tilegrid/runtime/gemm.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <span>
#include <thread>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/builtin_kernels.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/epilogue_args.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"
#include "tilegrid/runtime/tensor_map.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid {
namespace {

// Regions of a workspace start on 256-byte boundaries (what cuMemAlloc gives, and what TMA and
// vector loads of a padded copy want).
constexpr uint64_t kRegionAlign = 256;
uint64_t alignUp(uint64_t bytes) { return (bytes + kRegionAlign - 1) / kRegionAlign * kRegionAlign; }

// The kernel loaded into the current context for a compiled kernel: one module per configuration
// for the life of the process, shared by every Gemm of that configuration.
std::shared_ptr<const runtime::LoadedKernel> loadOnce(const std::shared_ptr<const runtime::CompiledKernel>& compiled) {
  static std::mutex mutex;
  static std::map<const runtime::CompiledKernel*,
                  std::pair<std::shared_ptr<const runtime::CompiledKernel>, std::shared_ptr<const runtime::LoadedKernel>>>
      loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[compiled.get()];
  if (!slot.second) slot = {compiled, std::make_shared<const runtime::LoadedKernel>(*compiled)};
  return slot.second;
}

// The buffers a kernel argument may address: the operands, and a fused epilogue's auxiliary output
// and input matrix c.
enum class Operand { A, B, C, Aux, CIn };

}  // namespace

// Everything run() needs, fixed when the Gemm is built: the argument list is a recipe that run()
// fills with the caller's pointers.
struct Gemm::State {
  scheduler::MatmulSchedule schedule;
  codegen::KernelSource source;
  std::shared_ptr<const runtime::LoadedKernel> kernel;
  codegen::LaunchConfig launch;  // resident: the grid the work split was planned for
  tg_problem problem_args{};

  enum class Slot { Problem, NullPointer, NullTensorMap, Workspace, Pointer, TensorMap };
  struct Arg {
    Slot slot = Slot::NullPointer;
    Operand operand = Operand::A;
    std::optional<codegen::TensorMapSpec> map;
    std::optional<uint64_t> padded_at;  // the operand is read through its padded copy at this offset
  };
  std::vector<Arg> args;
  struct Pad {
    Operand operand;
    uint64_t src_bytes;  // the operand's span
    codegen::PaddedCopy copy;
    uint64_t at;  // offset in the workspace
  };
  std::vector<Pad> pads;
  uint64_t workspace_bytes = 0;

  State(scheduler::MatmulSchedule s, bool overlap_prior_kernel);
};

namespace {

uint64_t spanBytes(const scheduler::MatmulProblem& p, Operand operand) {
  switch (operand) {
    case Operand::A: return static_cast<uint64_t>(p.spanA()) * static_cast<uint64_t>(scheduler::bytes(p.a_dtype));
    case Operand::B: return static_cast<uint64_t>(p.spanB()) * static_cast<uint64_t>(scheduler::bytes(p.b_dtype));
    case Operand::C: return static_cast<uint64_t>(p.spanC()) * static_cast<uint64_t>(scheduler::bytes(p.out_dtype));
    case Operand::Aux:
    case Operand::CIn: break;
  }
  TG_INTERNAL_CHECK(false) << "a fused epilogue's matrices are read and written in place, never padded";
  return 0;
}

Operand operandNamed(const codegen::KernelArg& arg, const std::string& kernel) {
  if (arg.buffer == "A") return Operand::A;
  if (arg.buffer == "B") return Operand::B;
  if (arg.buffer == "aux") return Operand::Aux;
  if (arg.buffer == "c") return Operand::CIn;
  TG_INTERNAL_CHECK(arg.buffer == "C") << "kernel " << kernel << " argument " << arg.name << " names buffer '"
                                       << arg.buffer << "'; a matmul has A, B, C and an epilogue's aux and c";
  return Operand::C;
}

}  // namespace

Gemm::State::State(scheduler::MatmulSchedule s, bool overlap_prior_kernel)
    : schedule(std::move(s)), source(codegen::emit(schedule)) {
  // A persistent grid is sized for the device it was planned for: on another, stream-K CTAs could
  // wait for partial sums from CTAs that never become resident.
  const scheduler::DeviceSpec current = runtime::currentDeviceSpec();
  const scheduler::DeviceSpec& planned = schedule.device;
  TG_USER_CHECK(planned.sm_count == current.sm_count && planned.cc_major == current.cc_major &&
                planned.cc_minor == current.cc_minor && planned.smem_per_block == current.smem_per_block)
      << "the schedule was planned for " << planned.toString() << ", but the current device is " << current.toString()
      << ": schedule for runtime::currentDeviceSpec()";
  // An sm_80-family kernel is compiled for the device's own target (sm_90a on Hopper), which runs
  // its mma.sync/ldmatrix/cp.async code: SASS does not run across major architectures.
  kernel = loadOnce(runtime::KernelCache::global().get(source, current.arch()));
  launch = kernel->residentLaunch(source.launch);
  const uint32_t cluster_size = launch.cluster[0] * launch.cluster[1] * launch.cluster[2];
  // The work split is planned for exactly the clusters this launch makes.
  problem_args = codegen::problemArgs(schedule, launch.grid[0] / cluster_size);
  // The workspace: the stream-K area first (its zeroed area of flags and accumulated sums at offset
  // 0, where every kernel of the device keeps it), then the padded copies. Where there are only
  // copies, they still start after that area, so that a workspace shared with stream-K kernels keeps
  // it zero.
  uint64_t stream_k_bytes = 0;
  for (const codegen::KernelArg& arg : source.args) stream_k_bytes = std::max(stream_k_bytes, arg.workspace_bytes);
  bool any_pad = false;
  for (const codegen::KernelArg& arg : source.args) any_pad = any_pad || arg.padded.has_value();
  uint64_t next = alignUp(stream_k_bytes > 0 || !any_pad ? stream_k_bytes
                                                         : codegen::workspaceZeroBytes(schedule.device));
  const scheduler::MatmulProblem& p = schedule.problem;
  for (const codegen::KernelArg& arg : source.args) {
    Arg a;
    if (arg.kind == codegen::ArgKind::Problem) {
      a.slot = Slot::Problem;
    } else if (arg.buffer.empty()) {
      TG_INTERNAL_CHECK(arg.kind == codegen::ArgKind::Pointer || arg.kind == codegen::ArgKind::TensorMap)
          << "unused argument " << arg.name << " is a " << toString(arg.kind);
      a.slot = arg.kind == codegen::ArgKind::TensorMap ? Slot::NullTensorMap : Slot::NullPointer;
    } else if (arg.buffer == "workspace") {
      TG_INTERNAL_CHECK(arg.kind == codegen::ArgKind::Pointer && arg.workspace_bytes > 0)
          << "kernel " << source.kernel_name << " argument " << arg.name << ": a workspace is a pointer to some bytes";
      a.slot = Slot::Workspace;
    } else {
      a.operand = operandNamed(arg, source.kernel_name);
      TG_INTERNAL_CHECK(arg.kind == codegen::ArgKind::Pointer || arg.kind == codegen::ArgKind::TensorMap)
          << "matmul kernels take pointers and tensor maps, not " << toString(arg.kind);
      a.slot = arg.kind == codegen::ArgKind::Pointer ? Slot::Pointer : Slot::TensorMap;
      if (a.slot == Slot::TensorMap) {
        TG_INTERNAL_CHECK(arg.tensor_map.has_value()) << "tensor map argument " << arg.name << " has no description";
        a.map = arg.tensor_map;
      }
      const bool epilogue_matrix = a.operand == Operand::Aux || a.operand == Operand::CIn;
      TG_INTERNAL_CHECK(!epilogue_matrix || a.slot == Slot::TensorMap)
          << "kernels address the epilogue's matrices through tg_epilogue_args or a tensor map";
      if (arg.padded) {
        TG_INTERNAL_CHECK(a.operand != Operand::C && !epilogue_matrix)
            << "outputs and the epilogue's matrices are used in place, never through a padded copy";
        a.padded_at = next;
        pads.push_back({a.operand, spanBytes(p, a.operand), *arg.padded, next});
        next = alignUp(next + arg.padded->rows * arg.padded->dst_pitch);
      }
    }
    args.push_back(std::move(a));
  }
  workspace_bytes = next;
  // On an sm_90 device a GEMM launched behind its padded copies, or behind whatever kernel comes
  // before it in the stream (GemmOptions::overlap_prior_kernel), starts while that kernel finishes,
  // and waits for it before its first global access (tg_wait_for_prior_grid): the launch's latency
  // hides under that kernel's tail. Every kernel compiled for such a device waits, whatever its
  // family (sm_80-family and dot kernels are compiled for the device's own target).
  const bool waits = current.arch() == scheduler::Arch::Sm90;
  launch.after_prior_grid = (overlap_prior_kernel || !pads.empty()) && waits;
}

Gemm::Gemm(const MatmulProblem& problem, const GemmOptions& options) {
  MatmulProblem validated = problem;
  validated.validate();
  scheduler::ScheduleOverrides overrides;
  overrides.arch = options.arch;
  overrides.specialize_shape = options.specialize_shape;
  overrides.deterministic = options.deterministic;
  overrides.launch_choices_compiled = options.fixed_choices;
  state_ = std::make_shared<const State>(scheduler::schedule(validated, runtime::currentDeviceSpec(), overrides),
                                         options.overlap_prior_kernel);
}

Gemm::Gemm(const scheduler::MatmulSchedule& schedule, bool overlap_prior_kernel)
    : state_(std::make_shared<const State>(schedule, overlap_prior_kernel)) {}

size_t Gemm::workspaceSize() const { return static_cast<size_t>(state_->workspace_bytes); }
const MatmulProblem& Gemm::problem() const { return state_->schedule.problem; }
const scheduler::MatmulSchedule& Gemm::schedule() const { return state_->schedule; }
const codegen::KernelSource& Gemm::source() const { return state_->source; }

void Gemm::run(const void* a, const void* b, void* c, void* workspace, size_t workspace_bytes,
               CUstream_st* stream, const EpilogueArgs& epilogue) const {
  const State& s = *state_;
  runtime::checkOperands(s.schedule.problem, a, b, c);
  tg_problem problem_args = s.problem_args;
  if (s.schedule.problem.takesEpilogueArgs()) {
    runtime::checkEpilogueArgs(s.schedule.problem, epilogue);
    runtime::checkEpilogueAliasing(s.schedule, epilogue, c);
    problem_args.epilogue = runtime::epilogueLaunchArgs(s.schedule.problem, epilogue);
  }
  if (s.workspace_bytes > 0) {
    TG_USER_CHECK(workspace != nullptr && workspace_bytes >= s.workspace_bytes)
        << "workspace: kernel " << s.source.kernel_name << " needs " << s.workspace_bytes
        << " bytes (Gemm::workspaceSize()), got " << (workspace ? std::to_string(workspace_bytes) + " bytes" : "null");
    TG_USER_CHECK(reinterpret_cast<uintptr_t>(workspace) % kRegionAlign == 0)
        << "workspace: pointer " << workspace << " is not " << kRegionAlign << "-byte aligned";
  }
  runtime::currentDevice();
  const auto address = [&](Operand o) {
    return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(o == Operand::A ? a : o == Operand::B ? b : c));
  };
  const auto ws = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(workspace));
  // The maps of the epilogue's aux output and input c, where the kernel takes them: their strides are
  // the launch's, and where a pointer or its rows do not suit TMA the kernel's threads store or read
  // that matrix instead.
  std::optional<CUtensorMap> aux_map, c_in_map;
  for (const State::Arg& arg : s.args) {
    if (arg.slot != State::Slot::TensorMap || (arg.operand != Operand::Aux && arg.operand != Operand::CIn)) continue;
    const tg_epilogue_args& k = problem_args.epilogue;
    const bool aux = arg.operand == Operand::Aux;
    const void* matrix = aux ? epilogue.aux : epilogue.c;
    if (const auto spec = runtime::epilogueTensorMap(*arg.map, matrix, aux ? k.ld_aux : k.ld_c,
                                                     aux ? k.batch_stride_aux : k.batch_stride_c)) {
      (aux ? aux_map : c_in_map) =
          runtime::encodeTensorMap(*spec, static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(matrix)));
    }
  }
  problem_args.epilogue.aux_by_tma = aux_map.has_value() ? 1 : 0;
  problem_args.epilogue.c_by_tma = c_in_map.has_value() ? 1 : 0;
  // Every padded copy in one launch: a launch less, and the copies share one tail.
  if (!s.pads.empty()) {
    std::array<runtime::PadJob, runtime::kMaxPadsALaunch> jobs;
    TG_INTERNAL_CHECK(s.pads.size() <= jobs.size()) << s.pads.size() << " padded copies for one GEMM";
    for (size_t i = 0; i < s.pads.size(); ++i) {
      const State::Pad& pad = s.pads[i];
      jobs[i] = {address(pad.operand), pad.src_bytes, ws + pad.at, pad.copy};
    }
    runtime::padRows(std::span<const runtime::PadJob>(jobs.data(), s.pads.size()), stream);
  }
  runtime::KernelArgs args;
  for (const State::Arg& arg : s.args) {
    const CUdeviceptr at = arg.padded_at ? ws + *arg.padded_at : address(arg.operand);
    switch (arg.slot) {
      case State::Slot::Problem: args.add(problem_args); break;
      case State::Slot::NullPointer: args.add(CUdeviceptr{0}); break;
      case State::Slot::NullTensorMap: args.add(CUtensorMap{}); break;
      case State::Slot::Workspace: args.add(ws); break;
      case State::Slot::Pointer: args.add(at); break;
      case State::Slot::TensorMap:
        if (arg.operand == Operand::Aux || arg.operand == Operand::CIn) {
          args.add((arg.operand == Operand::Aux ? aux_map : c_in_map).value_or(CUtensorMap{}));
        } else {
          args.add(runtime::encodeTensorMap(*arg.map, at));
        }
        break;
    }
  }
  s.kernel->launchResident(s.launch, args, stream);
}

namespace runtime {

void checkOperands(const MatmulProblem& p, const void* a, const void* b, const void* c) {
  const struct {
    const char* name;
    const char* field;
    const void* ptr;
    int64_t align;
    scheduler::DType type;
  } checks[] = {{"A", "align_a", a, p.align_a, p.a_dtype},
                {"B", "align_b", b, p.align_b, p.b_dtype},
                {"C", "align_c", c, p.align_c, p.out_dtype}};
  for (const auto& o : checks) {
    TG_USER_CHECK(o.ptr != nullptr) << "operand " << o.name << ": the device pointer is null";
    TG_INTERNAL_CHECK(o.align >= 1) << "operand " << o.name << ": the problem was not validated";
    const auto address = reinterpret_cast<uintptr_t>(o.ptr);
    const uint64_t bytes = static_cast<uint64_t>(o.align * scheduler::bytes(o.type));
    TG_USER_CHECK(address % bytes == 0)
        << "operand " << o.name << ": device pointer " << o.ptr << " is not " << bytes
        << "-byte aligned, which the problem promises (" << o.align << " " << scheduler::toString(o.type)
        << " elements); pass an aligned pointer or describe the problem with " << o.field << " = "
        << std::max<uint64_t>(1, (address & (~address + 1)) / static_cast<uint64_t>(scheduler::bytes(o.type)))
        << " or less";
  }
}

}  // namespace runtime
}  // namespace tilegrid
