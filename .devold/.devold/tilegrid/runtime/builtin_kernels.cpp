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
// One launch makes every copy a GEMM needs (A's and B's): the chunks of copy 1 follow those of copy
// 0 in one index space, so that the copies share the launch and its tail.
constexpr const char* kPadSource = R"(
struct tg_pad_copy {
  const unsigned char* src;
  unsigned char* dst;
  unsigned long long rows, row_bytes, src_pitch, dst_pitch, src_bytes, rows_per_batch, src_batch_pitch;
};
struct tg_pad_copies {
  tg_pad_copy copy[2];
  int count;
};

extern "C" __global__ void tilegrid_pad_rows(const tg_pad_copies copies) {
#if __CUDA_ARCH__ >= 900
  // The GEMM that reads the copies may launch now and set up beside this grid's last CTAs; it waits
  // for the copies to complete before it reads them (programmatic dependent launch).
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  const unsigned long long first_chunks = copies.copy[0].rows * ((copies.copy[0].row_bytes + 15) / 16);
  const unsigned long long total =
      first_chunks + (copies.count > 1 ? copies.copy[1].rows * ((copies.copy[1].row_bytes + 15) / 16) : 0ull);
  for (unsigned long long g = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; g < total;
       g += (unsigned long long)gridDim.x * blockDim.x) {
    const bool second = g >= first_chunks;
    const tg_pad_copy& p = copies.copy[second ? 1 : 0];
    const unsigned long long i = second ? g - first_chunks : g;
    const unsigned long long chunks = (p.row_bytes + 15) / 16;
    const unsigned long long row = i / chunks, c = i % chunks;
    const unsigned long long s = row / p.rows_per_batch * p.src_batch_pitch + row % p.rows_per_batch * p.src_pitch + c * 16;
    const unsigned long long at = (unsigned long long)p.src + s, begin = (unsigned long long)p.src;
    const unsigned long long base = at & ~15ull;
    unsigned int r[4];
    if (base >= begin && base + 32 <= begin + p.src_bytes) {
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
          const unsigned long long j = s + k * 4 + byte;
          if (j < p.src_bytes) word |= (unsigned int)p.src[j] << (8 * byte);
        }
        r[k] = word;
      }
    }
    *reinterpret_cast<uint4*>(p.dst + row * p.dst_pitch + c * 16) = make_uint4(r[0], r[1], r[2], r[3]);
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

namespace {

// The kernel's argument (tg_pad_copies above), field for field.
struct PadCopyArg {
  CUdeviceptr src, dst;
  uint64_t rows, row_bytes, src_pitch, dst_pitch, src_bytes, rows_per_batch, src_batch_pitch;
};
struct PadCopiesArg {
  PadCopyArg copy[kMaxPadsALaunch];
  int count;
};
static_assert(kMaxPadsALaunch == 2 && sizeof(PadCopyArg) == 9 * 8 && sizeof(PadCopiesArg) == 2 * 9 * 8 + 8,
              "PadCopiesArg's layout is tg_pad_copies' (two copies, then the count)");

}  // namespace

void padRows(std::span<const PadJob> jobs, CUstream stream) {
  TG_INTERNAL_CHECK(!jobs.empty() && jobs.size() <= kMaxPadsALaunch)
      << "padded copies: " << jobs.size() << " in one launch; it makes 1 to " << kMaxPadsALaunch;
  PadCopiesArg arg{};
  arg.count = static_cast<int>(jobs.size());
  uint64_t chunks = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const codegen::PaddedCopy& pad = jobs[i].copy;
    TG_INTERNAL_CHECK(pad.dst_pitch % 16 == 0 && pad.dst_pitch >= (pad.row_bytes + 15) / 16 * 16 && pad.rows >= 1)
        << "padded copy: destination pitch " << pad.dst_pitch << " cannot hold rows of " << pad.row_bytes << " bytes";
    TG_INTERNAL_CHECK(pad.rows_per_batch >= 1 && pad.rows % pad.rows_per_batch == 0)
        << "padded copy: " << pad.rows << " rows are not whole batch entries of " << pad.rows_per_batch;
    const uint64_t batches = pad.rows / pad.rows_per_batch;
    TG_INTERNAL_CHECK((batches - 1) * pad.src_batch_pitch + (pad.rows_per_batch - 1) * pad.src_pitch + pad.row_bytes <=
                      jobs[i].src_bytes)
        << "padded copy reads past its " << jobs[i].src_bytes << "-byte source";
    arg.copy[i] = {jobs[i].src,    jobs[i].dst,       pad.rows,           pad.row_bytes,      pad.src_pitch,
                   pad.dst_pitch, jobs[i].src_bytes, pad.rows_per_batch, pad.src_batch_pitch};
    chunks += pad.rows * ((pad.row_bytes + 15) / 16);
  }
  static const LoadedKernel& kernel = builtinKernel(padRowsSource());
  KernelArgs args;
  args.add(arg);
  codegen::LaunchConfig config;
  config.grid = {static_cast<uint32_t>(std::min<uint64_t>((chunks + 255) / 256, 132 * 32)), 1, 1};
  config.block = {256, 1, 1};
  kernel.launch(config, args, stream);
}

void padRows(CUdeviceptr src, uint64_t src_bytes, CUdeviceptr dst, const codegen::PaddedCopy& pad, CUstream stream) {
  const PadJob job{src, src_bytes, dst, pad};
  padRows(std::span<const PadJob>(&job, 1), stream);
}

}  // namespace tilegrid::runtime
