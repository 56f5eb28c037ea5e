#include "runtime/device.h"

#include "runtime/driver.h"

namespace tilegrid::runtime {

scheduler::DeviceSpec currentDeviceSpec() {
  const CUdevice device = currentDevice();
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    TG_CU(cuDeviceGetAttribute, &value, which, device);
    return value;
  };
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

}  // namespace tilegrid::runtime
