#pragma once
// KernelSource: one generated kernel, ready for the runtime to compile and launch.
#include <array>
#include <cstdint>
#include <string>
#include <optional>
#include <vector>

#include "tilegrid/codegen/tensor_map_spec.h"

namespace tilegrid::codegen {

struct LaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamic_smem_bytes = 0;
  std::array<uint32_t, 3> cluster{1, 1, 1};
  // The kernel walks its work units with a grid-stride loop and expects all its CTAs resident at
  // once: the launcher trims grid.x to the clusters the device can hold together.
  bool persistent = false;
  // Programmatic dependent launch: the kernel may start while the kernel before it in the stream
  // finishes, and waits for it before touching global memory (every kernel compiled for an sm_90
  // device: tg_wait_for_prior_grid).
  bool after_prior_grid = false;

  std::string toString() const;
};

// What each kernel parameter is, in order, so the launcher can check what it is given.
enum class ArgKind { Pointer, Int32, Int64, TensorMap, Problem };

// A copy the runtime makes before every launch: `rows` rows of `row_bytes` from the argument's
// buffer (rows `src_pitch` bytes apart, in batch entries of `rows_per_batch` rows `src_batch_pitch`
// bytes apart) into scratch memory (rows `dst_pitch` bytes apart, batch entries back to back), which
// the argument then addresses (tilegrid/runtime/builtin_kernels.h: padRows). It lets TMA read operands whose
// rows are not 16-byte aligned; its time is part of every launch, timings included.
struct PaddedCopy {
  uint64_t rows = 0, row_bytes = 0, src_pitch = 0, dst_pitch = 0;
  uint64_t rows_per_batch = 0, src_batch_pitch = 0;
  bool operator==(const PaddedCopy&) const = default;
};

// Problem: the launch's tg_problem (tilegrid/codegen/problem_args.h), filled from the problem it runs.
struct KernelArg {
  std::string name;
  ArgKind kind = ArgKind::Pointer;
  // Pointers and tensor maps: the matrix they address ("A", "B" or "C"; "aux" and "c", the fused
  // epilogue's auxiliary output and input matrix, whose addresses, leading dimensions and batch
  // strides the launch's runtime::EpilogueArgs give), or "workspace": scratch
  // memory of `workspace_bytes` the launcher owns, zeroed once when it is allocated. Kernels leave
  // it zeroed again where they need zeros (stream-K's flags). Empty: a parameter the kernel's
  // configuration does not read (unusedArg), passed as zeros.
  std::string buffer;
  // Tensor maps: what to encode over `buffer`.
  std::optional<TensorMapSpec> tensor_map;
  // Set when the kernel reads `buffer` through a padded copy.
  std::optional<PaddedCopy> padded;
  uint64_t workspace_bytes = 0;
};

struct KernelSource {
  std::string kernel_name;  // an extern "C" __global__ function in `cuda`, e.g. tilegrid_sm80_bf16_tn_...
  std::string cuda;         // self-contained CUDA C++: compiles with NVRTC alone
  LaunchConfig launch;
  std::vector<KernelArg> args;

  // The file name compile errors and dumps refer to: <kernel_name>.cu
  std::string fileName() const { return kernel_name + ".cu"; }
};

const char* toString(ArgKind kind);

// A parameter of the kernel's signature that its configuration does not read: a null pointer or a
// zeroed tensor map.
KernelArg unusedArg(const std::string& name, ArgKind kind);

}  // namespace tilegrid::codegen
