#pragma once
// Small kernels the runtime launches itself (random fills, padded operand copies): compiled with
// NVRTC for the current device on first use and kept loaded for the life of the process.
#include <cuda.h>

#include <cstdint>
#include <span>

#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/runtime/launcher.h"

namespace tilegrid::runtime {

// The loaded kernel of `source` for the current device's arch. Thread-safe.
const LoadedKernel& builtinKernel(const codegen::KernelSource& source);

// One padded copy: `copy.rows` rows of `copy.row_bytes` from `src` (`copy.src_pitch` apart; the
// buffer holds `src_bytes`) to `dst` (`copy.dst_pitch` apart, a multiple of 16). Bytes of a row's
// padding get whatever follows the row in `src`. Element sizes of 2 bytes or more.
struct PadJob {
  CUdeviceptr src = 0;
  uint64_t src_bytes = 0;
  CUdeviceptr dst = 0;
  codegen::PaddedCopy copy;
};
// The copies one launch makes: a GEMM's A and B.
inline constexpr size_t kMaxPadsALaunch = 2;

// The kernel padRows launches.
const codegen::KernelSource& padRowsSource();
// Makes `jobs` (1 to kMaxPadsALaunch) in one launch on `stream`.
void padRows(std::span<const PadJob> jobs, CUstream stream);
// Makes one copy.
void padRows(CUdeviceptr src, uint64_t src_bytes, CUdeviceptr dst, const codegen::PaddedCopy& pad, CUstream stream);

}  // namespace tilegrid::runtime
