#include "measure/read_inputs.h"

#include <algorithm>

#include "tilegrid/runtime/builtin_kernels.h"
#include "tilegrid/runtime/device.h"

namespace tilegrid::runtime {
namespace {

// Each thread keeps four independent 16-byte loads in flight per step (a grid-stride loop unrolled
// by hand), which is what a streaming read needs to cover DRAM latency; the 16-byte vectors start
// on the range's own 16-byte boundary (device allocations are 256-byte aligned; an unaligned range
// start is read bytewise up to it).
constexpr const char* kReadSource = R"(
__device__ unsigned int tg_read_range(const unsigned char* p, unsigned long long bytes) {
  unsigned int acc = 0;
  const unsigned long long lead = ((16 - ((unsigned long long)p & 15)) & 15) < bytes ? ((16 - ((unsigned long long)p & 15)) & 15) : bytes;
  const unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  const unsigned long long threads = (unsigned long long)gridDim.x * blockDim.x;
  if (tid < lead) acc ^= p[tid];
  const uint4* v = reinterpret_cast<const uint4*>(p + lead);
  const unsigned long long vectors = (bytes - lead) / 16;
  unsigned long long i = tid;
  for (; i + 3 * threads < vectors; i += 4 * threads) {
    const uint4 x0 = __ldcs(v + i), x1 = __ldcs(v + i + threads), x2 = __ldcs(v + i + 2 * threads),
                x3 = __ldcs(v + i + 3 * threads);
    acc ^= x0.x ^ x0.y ^ x0.z ^ x0.w ^ x1.x ^ x1.y ^ x1.z ^ x1.w ^ x2.x ^ x2.y ^ x2.z ^ x2.w ^ x3.x ^ x3.y ^ x3.z ^ x3.w;
  }
  for (; i < vectors; i += threads) {
    const uint4 x = __ldcs(v + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  const unsigned long long tail = lead + vectors * 16;
  if (tid < bytes - tail) acc ^= p[tail + tid];
  return acc;
}

extern "C" __global__ void tilegrid_read_inputs(const unsigned char* __restrict__ a, unsigned long long a_bytes,
                                                const unsigned char* __restrict__ b, unsigned long long b_bytes,
                                                unsigned int* __restrict__ never) {
  const unsigned int acc = tg_read_range(a, a_bytes) ^ tg_read_range(b, b_bytes);
  if (acc == 0x9e3779b9u && threadIdx.x == 1023) *never = acc;
}
)";

}  // namespace

const codegen::KernelSource& readInputsSource() {
  static const codegen::KernelSource source{"tilegrid_read_inputs", kReadSource, {}, {}};
  return source;
}

void readInputs(CUdeviceptr a, uint64_t a_bytes, CUdeviceptr b, uint64_t b_bytes, CUstream stream) {
  static const LoadedKernel& kernel = builtinKernel(readInputsSource());
  static const int sms = currentDeviceSpec().sm_count;
  KernelArgs args;
  // The write never happens (blocks have 512 threads), so no buffer is ever written.
  args.add(a).add(static_cast<unsigned long long>(a_bytes)).add(b).add(static_cast<unsigned long long>(b_bytes)).add(a);
  codegen::LaunchConfig config;
  // Four blocks of 512 threads per SM: 64 warps, the most an SM holds, each with four loads in flight.
  const uint64_t vectors = (std::max(a_bytes, b_bytes) + 15) / 16;
  config.grid = {static_cast<uint32_t>(std::clamp<uint64_t>((vectors + 511) / 512, 1, static_cast<uint64_t>(sms) * 4)), 1, 1};
  config.block = {512, 1, 1};
  kernel.launch(config, args, stream);
}

}  // namespace tilegrid::runtime
