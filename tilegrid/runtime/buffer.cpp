#include "tilegrid/runtime/buffer.h"

#include "tilegrid/runtime/builtin_kernels.h"

#include <utility>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"


namespace tilegrid::runtime {

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  TG_USER_CHECK(bytes > 0) << "a device buffer needs at least one byte";
  currentDevice();
  TG_CU(cuMemAlloc, &ptr_, bytes);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != 0) Driver::get().p_cuMemFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != 0) Driver::get().p_cuMemFree(ptr_);
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::copyFromHost(const void* data, size_t bytes) {
  TG_USER_CHECK(bytes <= bytes_) << "copying " << bytes << " bytes into a " << bytes_ << "-byte device buffer";
  currentDevice();
  // From pageable memory, cuMemcpyHtoD may return once the bytes are staged, before they land (CUDA's
  // API synchronization behavior), and a kernel launched next on a non-blocking stream would not
  // wait for them. The copy goes on the legacy stream, and returns once that has done it.
  TG_CU(cuMemcpyHtoDAsync, ptr_, data, bytes, CU_STREAM_LEGACY);
  TG_CU(cuStreamSynchronize, CU_STREAM_LEGACY);
}

void DeviceBuffer::copyToHost(void* data, size_t bytes) const {
  TG_USER_CHECK(bytes <= bytes_) << "copying " << bytes << " bytes out of a " << bytes_ << "-byte device buffer";
  currentDevice();
  TG_CU(cuMemcpyDtoH, data, ptr_, bytes);
}

void DeviceBuffer::fill(uint8_t value, CUstream stream) {
  currentDevice();
  TG_CU(cuMemsetD8Async, ptr_, value, bytes_, stream);
}

namespace {

// Must compute exactly what randomValues() does on the host: no contraction into FMAs.
constexpr const char* kFillSource = R"(#include <cuda_bf16.h>
#include <cuda_fp16.h>
__device__ unsigned long long tg_mix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
__device__ float tg_value(unsigned long long seed, unsigned long long i, float lo, float hi) {
  const unsigned long long h = tg_mix(seed * 0x100000001b3ULL + i);
  const float unit = __fmul_rn((float)(h >> 40), 1.0f / 16777216.0f);
  return __fadd_rn(lo, __fmul_rn(__fsub_rn(hi, lo), unit));
}
// e4m3 or e5m2, rounded to nearest even and saturated (sm_89 on: the device's own conversion).
__device__ unsigned char tg_to_fp8(float v, bool e4m3) {
  unsigned short pair = 0;
#if __CUDA_ARCH__ >= 890
  if (e4m3) {
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.f), "f"(v));
  } else {
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(0.f), "f"(v));
  }
#else
  __trap();  // 8-bit float operands are refused before any buffer is filled for an older device
#endif
  return (unsigned char)(pair & 0xff);
}
extern "C" __global__ void tilegrid_fill_random(void* out, unsigned long long count, unsigned long long seed,
                                                float lo, float hi, int dtype) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const float v = tg_value(seed, i, lo, hi);
    if (dtype == 0) {
      ((__nv_bfloat16*)out)[i] = __float2bfloat16_rn(v);
    } else if (dtype == 1) {
      ((__half*)out)[i] = __float2half_rn(v);
    } else if (dtype == 2) {
      ((float*)out)[i] = v;
    } else {
      ((unsigned char*)out)[i] = tg_to_fp8(v, dtype == 3);
    }
  }
}
)";

}  // namespace

const codegen::KernelSource& fillRandomSource() {
  static const codegen::KernelSource source{"tilegrid_fill_random", kFillSource, {}, {}};
  return source;
}

void fillRandomOnDevice(DeviceBuffer& buffer, scheduler::DType type, size_t count, uint64_t seed, float lo, float hi,
                        CUstream stream) {
  TG_USER_CHECK(count * static_cast<size_t>(scheduler::bytes(type)) <= buffer.bytes())
      << count << " " << scheduler::toString(type) << " elements do not fit a " << buffer.bytes() << "-byte buffer";
  TG_USER_CHECK(lo < hi) << "random fill: lo (" << lo << ") must be below hi (" << hi << ")";
  const LoadedKernel* kernel = &builtinKernel(fillRandomSource());
  const int dtype = type == scheduler::DType::BF16   ? 0
                    : type == scheduler::DType::FP16 ? 1
                    : type == scheduler::DType::FP32 ? 2
                    : type == scheduler::DType::E4M3 ? 3
                                                     : 4;
  KernelArgs args;
  args.add(buffer.ptr()).add(static_cast<unsigned long long>(count)).add(static_cast<unsigned long long>(seed));
  args.add(lo).add(hi).add(dtype);
  codegen::LaunchConfig config;
  config.grid = {static_cast<uint32_t>(std::min<size_t>((count + 255) / 256, 4096)), 1, 1};
  config.block = {256, 1, 1};
  kernel->launch(config, args, stream);
}

void fillRandomFromHost(DeviceBuffer& buffer, scheduler::DType type, size_t count, uint64_t seed, float lo, float hi) {
  const std::vector<uint8_t> bytes = encode(randomValues(count, seed, lo, hi), type);
  buffer.copyFromHost(bytes.data(), bytes.size());
}

Stream::Stream() {
  currentDevice();
  TG_CU(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
}

Stream::~Stream() {
  if (stream_ != nullptr) Driver::get().p_cuStreamDestroy(stream_);
}

void Stream::synchronize() const { TG_CU(cuStreamSynchronize, stream_); }

EventTimer::EventTimer() {
  currentDevice();
  TG_CU(cuEventCreate, &start_, CU_EVENT_DEFAULT);
  TG_CU(cuEventCreate, &stop_, CU_EVENT_DEFAULT);
}

EventTimer::~EventTimer() {
  const Driver& d = Driver::get();
  if (start_ != nullptr) d.p_cuEventDestroy(start_);
  if (stop_ != nullptr) d.p_cuEventDestroy(stop_);
}

void EventTimer::start(CUstream stream) { TG_CU(cuEventRecord, start_, stream); }
void EventTimer::stop(CUstream stream) { TG_CU(cuEventRecord, stop_, stream); }

float EventTimer::elapsedMs() const {
  TG_CU(cuEventSynchronize, stop_);
  float ms = 0;
  TG_CU(cuEventElapsedTime, &ms, start_, stop_);
  return ms;
}

void synchronizeDevice() {
  currentDevice();
  TG_CU(cuCtxSynchronize);
}

}  // namespace tilegrid::runtime
