#pragma once
#include "scheduler/problem.h"

namespace tilegrid::runtime {

// The scheduler's view of the current device: compute capability, SM count, the opt-in maximum of
// shared memory per block, and L2 size. Throws NoDeviceError without a driver or device.
scheduler::DeviceSpec currentDeviceSpec();

}  // namespace tilegrid::runtime
