#pragma once
// GPU tests skip themselves without a device: `if (auto why = findDevice(device)) GTEST_SKIP() << *why;`
#include <optional>
#include <string>

#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"

namespace tilegrid::testing {

// Fills `device` with the current GPU's spec, or returns why there is none.
inline std::optional<std::string> findDevice(scheduler::DeviceSpec& device) {
  try {
    device = runtime::currentDeviceSpec();
    return std::nullopt;
  } catch (const runtime::NoDeviceError& e) {
    return std::string(e.what());
  }
}

}  // namespace tilegrid::testing
