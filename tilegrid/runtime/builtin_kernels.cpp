#include "tilegrid/runtime/builtin_kernels.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/kernel_cache.h"

namespace tilegrid::runtime {
namespace {

// Each thread writes one aligned 16-byte chunk of a padded row; the destination's batch entries
// follow one another, the source's lie src_batch_pitch apart. Its source may start on any byte
// (the row pitch and the buffer's own address), so the thread reads the two aligned 16-byte words
// around it and funnel-shifts the chunk out (the overlapping reads hit L1), instead of eight 2-byte
// loads. Where either word would reach outside the buffer, at its ends, it reads bytes one at a time.
constexpr const char* kPadSource = R"(
extern "C" __global__ void tilegrid_pad_rows(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                                             unsigned long long rows, unsigned long long row_bytes,
                                             unsigned long long src_pitch, unsigned long long dst_pitch,
                                             unsigned long long src_bytes, unsigned long long rows_per_batch,
                                             unsigned long long src_batch_pitch) {
  const unsigned long long chunks = (row_bytes + 15) / 16;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < rows * chunks;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long row = i / chunks, c = i % chunks;
    const unsigned long long s = row / rows_per_batch * src_batch_pitch + row % rows_per_batch * src_pitch + c * 16;
    const unsigned long long at = (unsigned long long)src + s, begin = (unsigned long long)src;
    const unsigned long long base = at & ~15ull;
    unsigned int r[4];
    if (base >= begin && base + 32 <= begin + src_bytes) {
      const uint4 a = *reinterpret_cast<const uint4*>(base);
      const uint4 b = *reinterpret_cast<const uint4*>(base + 16);
      const unsigned int w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
      const unsigned int o = (unsigned int)(at & 15), q = o >> 2, shift = (o & 3) * 8;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const unsigned int lo = q == 0 ? w[k] : q == 1 ? w[k + 1] : q == 2 ? w[k + 2] : w[k + 3];
        const unsigned int hi = q == 0 ? w[k + 1] : q == 1 ? w[k + 2] : q == 2 ? w[k + 3] : w[k + 4];
        r[k] = __funnelshift_r(lo, hi, shift);
      }
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        unsigned int word = 0;
        for (int byte = 0; byte < 4; ++byte) {
          const unsigned long long i = s + k * 4 + byte;
          if (i < src_bytes) word |= (unsigned int)src[i] << (8 * byte);
        }
        r[k] = word;
      }
    }
    *reinterpret_cast<uint4*>(dst + row * dst_pitch + c * 16) = make_uint4(r[0], r[1], r[2], r[3]);
  }
}
)";

}  // namespace

const LoadedKernel& builtinKernel(const codegen::KernelSource& source) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, scheduler::Arch>, std::unique_ptr<LoadedKernel>> loaded;
  // The device is fixed for the process (device 0 of CUDA_VISIBLE_DEVICES): its arch is read once.
  static const scheduler::Arch arch = currentDeviceSpec().arch();
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[{source.kernel_name, arch}];
  if (!slot) slot = std::make_unique<LoadedKernel>(*KernelCache::global().get(source, arch));
  return *slot;
}

const codegen::KernelSource& padRowsSource() {
  static const codegen::KernelSource source{"tilegrid_pad_rows", kPadSource, {}, {}};
  return source;
}

void padRows(CUdeviceptr src, uint64_t src_bytes, CUdeviceptr dst, const codegen::PaddedCopy& pad, CUstream stream) {
  TG_INTERNAL_CHECK(pad.dst_pitch % 16 == 0 && pad.dst_pitch >= (pad.row_bytes + 15) / 16 * 16 && pad.rows >= 1)
      << "padded copy: destination pitch " << pad.dst_pitch << " cannot hold rows of " << pad.row_bytes << " bytes";
  TG_INTERNAL_CHECK(pad.rows_per_batch >= 1 && pad.rows % pad.rows_per_batch == 0)
      << "padded copy: " << pad.rows << " rows are not whole batch entries of " << pad.rows_per_batch;
  const uint64_t batches = pad.rows / pad.rows_per_batch;
  TG_INTERNAL_CHECK((batches - 1) * pad.src_batch_pitch + (pad.rows_per_batch - 1) * pad.src_pitch + pad.row_bytes <=
                    src_bytes)
      << "padded copy reads past its " << src_bytes << "-byte source";
  static const LoadedKernel& kernel = builtinKernel(padRowsSource());
  KernelArgs args;
  args.add(src).add(dst).add(static_cast<unsigned long long>(pad.rows));
  args.add(static_cast<unsigned long long>(pad.row_bytes)).add(static_cast<unsigned long long>(pad.src_pitch));
  args.add(static_cast<unsigned long long>(pad.dst_pitch)).add(static_cast<unsigned long long>(src_bytes));
  args.add(static_cast<unsigned long long>(pad.rows_per_batch)).add(static_cast<unsigned long long>(pad.src_batch_pitch));
  const uint64_t chunks = pad.rows * ((pad.row_bytes + 15) / 16);
  codegen::LaunchConfig config;
  config.grid = {static_cast<uint32_t>(std::min<uint64_t>((chunks + 255) / 256, 132 * 32)), 1, 1};
  config.block = {256, 1, 1};
  kernel.launch(config, args, stream);
}

}  // namespace tilegrid::runtime
