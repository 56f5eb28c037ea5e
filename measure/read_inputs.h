#pragma once
// The memory-speed reference for a GEMM: a kernel that reads every byte of A and B once, as fast as
// a plain streaming read goes, and does nothing else. Timed beside a GEMM on the same buffers (after
// the same L2 flush), its time over the GEMM's is the share of plain-read bandwidth the GEMM reaches
// on its inputs: what decides a memory-bound problem such as decode (docs/benchmarks.md).
#include <cuda.h>

#include <cstdint>

#include "tilegrid/codegen/kernel_source.h"

namespace tilegrid::runtime {

// Reads `a_bytes` at `a` and `b_bytes` at `b` on `stream`, in 16-byte loads spread over every SM
// (bytes outside the range's whole 16-byte vectors one at a time). The loaded values feed a sum
// that only a thread index the launch never has would write, so the compiler keeps every load and
// nothing is written.
// The kernel readInputs launches.
const codegen::KernelSource& readInputsSource();
void readInputs(CUdeviceptr a, uint64_t a_bytes, CUdeviceptr b, uint64_t b_bytes, CUstream stream);

// Reads `bytes` at `at` the same way, with the loads' normal L2 priority: what L2Flusher's read flush
// runs (measure/l2_flush.h).
const codegen::KernelSource& readThroughL2Source();
void readThroughL2(CUdeviceptr at, uint64_t bytes, CUstream stream);

}  // namespace tilegrid::runtime
