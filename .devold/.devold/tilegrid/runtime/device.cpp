#include "tilegrid/runtime/device.h"

#include <fmt/format.h>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/compiler.h"
#include "tilegrid/runtime/cuda_toolkit.h"
#include "tilegrid/runtime/driver.h"

namespace tilegrid::runtime {

namespace {

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  TG_CU(cuDeviceGetAttribute, &value, which, device);
  return value;
}

}  // namespace

void checkFitsInDeviceMemory(uint64_t bytes, const std::string& what) {
  currentDevice();
  size_t free_bytes = 0, total_bytes = 0;
  TG_CU(cuMemGetInfo, &free_bytes, &total_bytes);
  TG_USER_CHECK(bytes <= free_bytes) << what << " needs " << bytes / (1 << 20) << " MiB of device memory; the device has "
                                     << free_bytes / (1 << 20) << " MiB free of " << total_bytes / (1 << 20);
}

scheduler::DeviceSpec currentDeviceSpec() {
  const CUdevice device = currentDevice();
  auto attribute = [&](CUdevice_attribute which) { return runtime::attribute(device, which); };
  char name[256] = {};
  TG_CU(cuDeviceGetName, name, sizeof(name), device);
  scheduler::DeviceSpec spec;
  spec.name = name;
  spec.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  spec.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  spec.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  spec.smem_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  spec.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  return spec;
}

std::optional<scheduler::DeviceSpec> findDeviceSpec(std::string& why_not) {
  try {
    return currentDeviceSpec();
  } catch (const NoDeviceError& e) {
    why_not = e.what();
    return std::nullopt;
  }
}

std::vector<std::pair<std::string, std::string>> describeDevice() {
  const scheduler::DeviceSpec spec = currentDeviceSpec();
  const CUdevice device = currentDevice();
  int driver = 0;
  TG_CU(cuDriverGetVersion, &driver);
  std::vector<std::pair<std::string, std::string>> context{
      {"gpu", spec.name},
      {"compute_capability", fmt::format("{}.{}", spec.cc_major, spec.cc_minor)},
      {"sm_count", std::to_string(spec.sm_count)},
      {"sm_clock_mhz", std::to_string(attribute(device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000)},
      {"memory_clock_mhz", std::to_string(attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000)},
      {"l2_mb", fmt::format("{:.0f}", spec.l2_bytes / 1e6)},
      {"driver_cuda_version", fmt::format("{}.{}", driver / 1000, driver % 1000 / 10)},
      {"nvrtc", nvrtcVersion()}};
  if (auto toolkit = findCudaToolkit()) context.emplace_back("cuda_toolkit", toolkit->versionString());
  return context;
}

}  // namespace tilegrid::runtime
