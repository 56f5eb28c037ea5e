#include "tilegrid/runtime/compiler.h"

#include <nvrtc.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/cuda_toolkit.h"

namespace tilegrid::runtime {
namespace {

void checkNvrtc(nvrtcResult result, const char* call) {
  TG_INTERNAL_CHECK(result == NVRTC_SUCCESS) << call << " failed: " << nvrtcGetErrorString(result);
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};

}  // namespace

CompileError::CompileError(const std::string& file_name, const std::string& log)
    : std::runtime_error("NVRTC failed to compile " + file_name + ":\n" + log), log_(log) {}

const KernelStats* CompiledKernel::findStats(const std::string& name) const {
  const std::string wanted = name.empty() ? kernel_name : name;
  for (const KernelStats& s : stats) {
    if (s.name == wanted) return &s;
  }
  return nullptr;
}

const KernelStats& CompiledKernel::statsFor(const std::string& name) const {
  const KernelStats* found = findStats(name);
  TG_USER_CHECK(found) << "ptxas reported no statistics for kernel '" << (name.empty() ? kernel_name : name) << "'";
  return *found;
}

const char* nvrtcTarget(scheduler::Arch arch) { return arch == scheduler::Arch::Sm80 ? "sm_80" : "sm_90a"; }

std::vector<std::string> nvrtcOptions(scheduler::Arch arch, const CompileOptions& options) {
  const CudaToolkit toolkit = requireCudaToolkit();
  // -DNDEBUG: an assert left in device code serializes wgmma (ptxas C7510). -default-device: a lambda
  // marked always_inline (TG_INLINE) counts as annotated, and NVRTC would take it for host code.
  std::vector<std::string> opts = {std::string("--gpu-architecture=") + nvrtcTarget(arch), "--std=c++17",
                                   "-I" + toolkit.include_dir, "--ptxas-options=-v", "-DNDEBUG", "-default-device"};
  if (options.line_info) opts.emplace_back("-lineinfo");
  if (options.device_debug) opts.emplace_back("-G");
  for (const std::string& d : options.defines) {
    TG_USER_CHECK(!d.empty() && d.find_first_of(" \t\n") == std::string::npos)
        << "compile define '" << d << "' must be NAME or NAME=VALUE without spaces";
    opts.push_back("-D" + d);
  }
  return opts;
}

std::string nvrtcVersion() {
  int major = 0, minor = 0;
  checkNvrtc(::nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<KernelStats> parsePtxasLog(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?)");
  std::vector<KernelStats> stats;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      stats.push_back(KernelStats{m[1], 0, 0, 0, 0, 0, 0});
    } else if (!stats.empty() && std::regex_search(line, m, frame)) {
      stats.back().stack_bytes = std::stoll(m[1]);
      stats.back().spill_stores = std::stoll(m[2]);
      stats.back().spill_loads = std::stoll(m[3]);
    } else if (!stats.empty() && std::regex_search(line, m, used)) {
      stats.back().registers = std::stoi(m[1]);
      if (m[2].matched) stats.back().barriers = std::stoi(m[2]);
      if (m[3].matched) stats.back().smem_bytes = std::stoll(m[3]);
    }
  }
  return stats;
}

// Where a driver is installed, NVRTC keeps a compute cache (~/.nv/ComputeCache) and answers a
// repeated compile from it with an empty log: the ptxas statistics would be lost. tilegrid caches
// compiled kernels itself, so it turns that cache off for the process. Set while the process starts,
// as its static objects are built: setenv races with getenv in any thread already running.
const bool kComputeCacheDisabled = ::setenv("CUDA_CACHE_DISABLE", "1", 1) == 0;

CompiledKernel compile(const codegen::KernelSource& source, scheduler::Arch arch, const CompileOptions& options) {
  (void)kComputeCacheDisabled;
  TG_USER_CHECK(!source.kernel_name.empty()) << "a kernel source needs a kernel name";
  TG_USER_CHECK(!source.cuda.empty()) << "kernel " << source.kernel_name << " has no CUDA source";
  const std::vector<std::string> opts = nvrtcOptions(arch, options);
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());

  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram(nullptr));
  checkNvrtc(nvrtcCreateProgram(program.get(), source.cuda.c_str(), source.fileName().c_str(), 0, nullptr, nullptr),
             "nvrtcCreateProgram");
  const nvrtcResult result = nvrtcCompileProgram(*program, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  checkNvrtc(nvrtcGetProgramLogSize(*program, &log_size), "nvrtcGetProgramLogSize");
  std::string log(log_size, '\0');
  if (log_size > 0) checkNvrtc(nvrtcGetProgramLog(*program, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && log.back() == '\0') log.pop_back();
  if (result != NVRTC_SUCCESS) throw CompileError(source.fileName(), log);

  CompiledKernel out;
  out.kernel_name = source.kernel_name;
  out.arch = arch;
  out.log = log;
  size_t size = 0;
  checkNvrtc(nvrtcGetPTXSize(*program, &size), "nvrtcGetPTXSize");
  out.ptx.resize(size);
  checkNvrtc(nvrtcGetPTX(*program, out.ptx.data()), "nvrtcGetPTX");
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  checkNvrtc(nvrtcGetCUBINSize(*program, &size), "nvrtcGetCUBINSize");
  out.cubin.resize(size);
  checkNvrtc(nvrtcGetCUBIN(*program, out.cubin.data()), "nvrtcGetCUBIN");
  out.stats = parsePtxasLog(log);
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("warning") != std::string::npos) out.warnings.push_back(line);
  }
  TG_USER_CHECK(out.ptx.find(".entry " + source.kernel_name) != std::string::npos)
      << "kernel " << source.kernel_name << " is not in the compiled module: is it declared extern \"C\" __global__?";
  return out;
}

}  // namespace tilegrid::runtime
