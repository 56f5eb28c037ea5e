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

// Fills `device` as findDevice does, or returns why `what` cannot run here: no device, or not an
// sm_90 one.
inline std::optional<std::string> findSm90Device(scheduler::DeviceSpec& device, const std::string& what) {
  if (auto why = findDevice(device)) return why;
  if (device.arch() != scheduler::Arch::Sm90) return what + " need an sm_90 device, not " + device.toString();
  return std::nullopt;
}

}  // namespace tilegrid::testing
