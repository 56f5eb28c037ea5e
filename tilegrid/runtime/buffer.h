#pragma once
// Device memory, streams, event timing and L2 flushing for tests and benchmarks.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "tilegrid/codegen/kernel_source.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

  // Both copies have completed on the device when they return: kernels on any stream see the bytes.
  void copyFromHost(const void* data, size_t bytes);
  void copyToHost(void* data, size_t bytes) const;
  template <typename T>
  std::vector<T> toHost() const {
    std::vector<T> out(bytes_ / sizeof(T));
    copyToHost(out.data(), out.size() * sizeof(T));
    return out;
  }
  // Every byte set to `value` (to poison outputs before a run).
  void fill(uint8_t value, CUstream stream = nullptr);

 private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

// `count` elements of `type`, uniform in [lo, hi), generated on the device by a small NVRTC kernel.
// The values equal randomValues(count, seed, lo, hi) encoded as `type`.
// The kernel fillRandomOnDevice launches.
const codegen::KernelSource& fillRandomSource();
void fillRandomOnDevice(DeviceBuffer& buffer, scheduler::DType type, size_t count, uint64_t seed, float lo = -1.0f,
                        float hi = 1.0f, CUstream stream = nullptr);
// The same values, generated on the host and copied over.
void fillRandomFromHost(DeviceBuffer& buffer, scheduler::DType type, size_t count, uint64_t seed, float lo = -1.0f,
                        float hi = 1.0f);

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return stream_; }
  void synchronize() const;

 private:
  CUstream stream_ = nullptr;
};

// Times device work between start() and stop() with CUDA events.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(CUstream stream = nullptr);
  void stop(CUstream stream = nullptr);
  // Waits for the stop event; milliseconds between the two events.
  float elapsedMs() const;

 private:
  CUevent start_ = nullptr, stop_ = nullptr;
};

// Waits for all work on the current context.
void synchronizeDevice();

}  // namespace tilegrid::runtime
