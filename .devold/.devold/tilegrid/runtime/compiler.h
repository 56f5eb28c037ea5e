#pragma once
// NVRTC: generated CUDA -> PTX and CUBIN for sm_80 or sm_90a, with ptxas statistics per kernel.
// Needs no GPU and no driver.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

struct CompileOptions {
  bool line_info = false;     // -lineinfo
  bool device_debug = false;  // -G
  std::vector<std::string> defines;  // NAME or NAME=VALUE, passed as -D
  bool operator==(const CompileOptions&) const = default;
};

struct KernelStats {
  std::string name;
  int registers = 0;
  int barriers = 0;
  int64_t smem_bytes = 0;  // static shared memory
  int64_t stack_bytes = 0;
  int64_t spill_stores = 0;
  int64_t spill_loads = 0;
  bool operator==(const KernelStats&) const = default;
};

struct CompiledKernel {
  std::string kernel_name;
  scheduler::Arch arch = scheduler::Arch::Sm80;
  std::string ptx;
  std::string cubin;  // bytes
  std::string log;    // the full NVRTC and ptxas log
  std::vector<KernelStats> stats;
  std::vector<std::string> warnings;  // ptxas/NVRTC warning lines, e.g. C7510 wgmma serialization

  // Stats of `name` (the kernel itself by default); throws UserError if ptxas did not report it.
  const KernelStats& statsFor(const std::string& name = "") const;
  // The same, or nullptr: ptxas logs nothing under some tools (seen under Nsight Compute).
  const KernelStats* findStats(const std::string& name = "") const;
  bool operator==(const CompiledKernel&) const = default;
};

// A failed compile: what() has the generated file's name and the complete log.
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& file_name, const std::string& log);
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// The NVRTC target: sm_80, or sm_90a (wgmma and setmaxnreg need the "a" variant).
const char* nvrtcTarget(scheduler::Arch arch);
// The exact NVRTC command-line options used for this arch and these options.
std::vector<std::string> nvrtcOptions(scheduler::Arch arch, const CompileOptions& options);
// "13.0": the NVRTC library version in use.
std::string nvrtcVersion();

// Compiles without caching. Throws CompileError on a compile failure.
CompiledKernel compile(const codegen::KernelSource& source, scheduler::Arch arch, const CompileOptions& options = {});

// Reads ptxas's verbose report into per-kernel statistics.
std::vector<KernelStats> parsePtxasLog(const std::string& log);

}  // namespace tilegrid::runtime
