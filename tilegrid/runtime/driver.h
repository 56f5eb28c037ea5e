#pragma once
// The CUDA driver API, loaded at first use with dlopen and the driver's own entry-point lookup
// (cuGetProcAddress). Nothing links against libcuda, so the library and the CLI start on machines
// without a driver; only the calls that need the GPU fail, and they say why.
//
// TILEGRID_LIBCUDA overrides the library path (tests use a path that does not exist to simulate a
// machine without a driver).
#include <cuda.h>

#include <string>

#include "tilegrid/runtime/errors.h"

namespace tilegrid::runtime {

// Every driver entry point tilegrid uses. X(name) is expanded once to declare the member and once to
// resolve it, so the two lists cannot drift apart.
#define TILEGRID_DRIVER_ENTRY_POINTS(X) \
  X(cuInit)                             \
  X(cuDriverGetVersion)                 \
  X(cuDeviceGet)                        \
  X(cuDeviceGetCount)                   \
  X(cuDeviceGetName)                    \
  X(cuDeviceGetAttribute)               \
  X(cuDevicePrimaryCtxRetain)           \
  X(cuCtxSetCurrent)                    \
  X(cuCtxSynchronize)                   \
  X(cuModuleLoadData)                   \
  X(cuModuleUnload)                     \
  X(cuModuleGetFunction)                \
  X(cuFuncSetAttribute)                 \
  X(cuFuncGetAttribute)                 \
  X(cuLaunchKernelEx)                   \
  X(cuOccupancyMaxActiveClusters)       \
  X(cuMemAlloc)                         \
  X(cuMemFree)                          \
  X(cuMemGetInfo)                       \
  X(cuMemcpyHtoDAsync)                  \
  X(cuMemcpyDtoH)                       \
  X(cuMemsetD8Async)                    \
  X(cuStreamCreate)                     \
  X(cuStreamDestroy)                    \
  X(cuStreamSynchronize)                \
  X(cuEventCreate)                      \
  X(cuEventDestroy)                     \
  X(cuEventRecord)                      \
  X(cuEventSynchronize)                 \
  X(cuEventElapsedTime)                 \
  X(cuTensorMapEncodeTiled)             \
  X(cuGetErrorName)                     \
  X(cuGetErrorString)

class Driver {
 public:
  // Loads the driver on first use (thread-safe). Throws NoDeviceError without a driver.
  static const Driver& get();

#define TILEGRID_DECLARE_ENTRY(name) decltype(&name) p_##name = nullptr;
  TILEGRID_DRIVER_ENTRY_POINTS(TILEGRID_DECLARE_ENTRY)
#undef TILEGRID_DECLARE_ENTRY

  // Throws CudaError for anything but CUDA_SUCCESS.
  void check(CUresult result, const char* call) const;

 private:
  Driver() = default;
};

// Makes the primary context of device 0 (CUDA_VISIBLE_DEVICES applies) current on the calling
// thread, initialising the driver on first use. Throws NoDeviceError without a driver or device.
CUdevice currentDevice();

}  // namespace tilegrid::runtime

// Calls a driver entry point and throws CudaError naming the call if it fails.
#define TG_CU(call_name, ...)                                                                  \
  do {                                                                                         \
    const auto& tg_driver = ::tilegrid::runtime::Driver::get();                                \
    tg_driver.check(tg_driver.p_##call_name(__VA_ARGS__), #call_name);                         \
  } while (0)
