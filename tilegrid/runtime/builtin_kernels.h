#pragma once
// Small kernels the runtime launches itself (random fills, padded operand copies): compiled with
// NVRTC for the current device on first use and kept loaded for the life of the process.
#include <cuda.h>

#include <cstdint>

#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/runtime/launcher.h"

namespace tilegrid::runtime {

// The loaded kernel of `source` for the current device's arch. Thread-safe.
const LoadedKernel& builtinKernel(const codegen::KernelSource& source);

// Copies `pad.rows` rows of `pad.row_bytes` from `src` (`pad.src_pitch` apart; the buffer holds
// `src_bytes`) to `dst` (`pad.dst_pitch` apart, a multiple of 16), on `stream`. Bytes of a row's
// padding get whatever follows the row in `src`. Element sizes of 2 bytes or more.
// The kernel padRows launches.
const codegen::KernelSource& padRowsSource();
void padRows(CUdeviceptr src, uint64_t src_bytes, CUdeviceptr dst, const codegen::PaddedCopy& pad, CUstream stream);

}  // namespace tilegrid::runtime
