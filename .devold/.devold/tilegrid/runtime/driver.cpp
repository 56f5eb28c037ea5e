#include "tilegrid/runtime/driver.h"

#include <string_view>

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace tilegrid::runtime {
namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

std::string libraryPath() {
  const char* path = std::getenv("TILEGRID_LIBCUDA");
  return (path != nullptr && *path != '\0') ? std::string(path) : std::string("libcuda.so.1");
}

}  // namespace

CudaError::CudaError(std::string call, int result, std::string name, std::string text)
    : std::runtime_error(call + " failed: " + name + " (" + text + ")"), call_(std::move(call)), result_(result) {}

// The CUDA version whose ABI of `name` cuda.h declares. cuGetProcAddress hands out the newest
// variant at or below the version asked for; CUDA 13 added cuCtxSynchronize_v2(CUcontext), which
// cuda.h does not map `cuCtxSynchronize` to, so asking with 13.0 gave a function with a different
// signature (seen failing with CUDA_ERROR_CONTEXT_IS_DESTROYED).
int abiVersion(const char* name) {
  return std::string_view(name) == "cuCtxSynchronize" ? 12000 : CUDA_VERSION;
}

const Driver& Driver::get() {
  // A failed load is remembered too: every later call reports the same reason without retrying.
  static Driver driver;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string path = libraryPath();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      failure = "no CUDA driver found (" + path + ": " + (why ? why : "no reason given") +
                "): this machine cannot launch kernels";
      return;
    }
    auto get_proc = reinterpret_cast<GetProcAddress>(dlsym(handle, "cuGetProcAddress_v2"));
    if (get_proc == nullptr) {
      failure = "the CUDA driver at " + path + " is too old: it has no cuGetProcAddress_v2 (CUDA 12 or newer needed)";
      return;
    }
    std::string missing;
#define TILEGRID_RESOLVE_ENTRY(name)                                                                        \
  {                                                                                                         \
    void* fn = nullptr;                                                                                     \
    CUdriverProcAddressQueryResult status{};                                                                \
    if (get_proc(#name, &fn, abiVersion(#name), CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || !fn) { \
      missing += std::string(missing.empty() ? "" : ", ") + #name;                                          \
    }                                                                                                       \
    driver.p_##name = reinterpret_cast<decltype(driver.p_##name)>(fn);                                      \
  }
    TILEGRID_DRIVER_ENTRY_POINTS(TILEGRID_RESOLVE_ENTRY)
#undef TILEGRID_RESOLVE_ENTRY
    if (!missing.empty()) failure = "the CUDA driver at " + path + " lacks entry points: " + missing;
  });
  if (!failure.empty()) throw NoDeviceError(failure);
  return driver;
}

void Driver::check(CUresult result, const char* call) const {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (p_cuGetErrorName == nullptr || p_cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (p_cuGetErrorString == nullptr || p_cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  throw CudaError(call, static_cast<int>(result), name ? name : "CUresult " + std::to_string(static_cast<int>(result)),
                  text ? text : "no description");
}

CUdevice currentDevice() {
  const Driver& d = Driver::get();
  static CUdevice device = 0;
  static CUcontext context = nullptr;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [&] {
    const CUresult init = d.p_cuInit(0);
    if (init == CUDA_ERROR_NO_DEVICE) {
      failure = "no CUDA device: the driver is installed but sees no GPU";
      return;
    }
    d.check(init, "cuInit");
    int count = 0;
    d.check(d.p_cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) {
      failure = "no CUDA device: the driver is installed but sees no GPU";
      return;
    }
    d.check(d.p_cuDeviceGet(&device, 0), "cuDeviceGet");
    d.check(d.p_cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  });
  if (!failure.empty()) throw NoDeviceError(failure);
  if (context == nullptr) throw NoDeviceError("the CUDA context could not be created (see the first error)");
  thread_local bool current = false;
  if (!current) {
    d.check(d.p_cuCtxSetCurrent(context), "cuCtxSetCurrent");
    current = true;
  }
  return device;
}

}  // namespace tilegrid::runtime
