#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

// The scheduler's view of the current device: compute capability, SM count, the opt-in maximum of
// shared memory per block, and L2 size. Throws NoDeviceError without a driver or device.
scheduler::DeviceSpec currentDeviceSpec();
// The same, or nothing with the reason in `why_not` when there is no driver or device.
std::optional<scheduler::DeviceSpec> findDeviceSpec(std::string& why_not);

// Throws UserError unless `bytes` fit in the current device's free memory: `what` names what
// needed them. Checked before allocating, so a problem too large for the device gets a clear error.
void checkFitsInDeviceMemory(uint64_t bytes, const std::string& what);

// What a measurement needs to be read later: GPU name, SMs, clocks, driver, CUDA toolkit and NVRTC
// versions, as (key, value) pairs. Throws NoDeviceError without a driver or device.
std::vector<std::pair<std::string, std::string>> describeDevice();

}  // namespace tilegrid::runtime
