// Runs with TILEGRID_LIBCUDA=/nonexistent (set by ctest): a machine without a driver compiles
// everything and launches nothing, saying why.
#include <gtest/gtest.h>

#include "runtime/buffer.h"
#include "runtime/compiler.h"
#include "runtime/device.h"
#include "runtime/driver.h"

namespace tilegrid::runtime {
namespace {

TEST(NoDriver, LaunchingFailsClearlyAndCompilingWorks) {
  ASSERT_STREQ(std::getenv("TILEGRID_LIBCUDA"), "/nonexistent");
  try {
    currentDevice();
    FAIL() << "found a device through a driver that does not exist";
  } catch (const NoDeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA driver found (/nonexistent)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DeviceBuffer(1024), NoDeviceError);
  EXPECT_THROW(currentDeviceSpec(), NoDeviceError);
  const codegen::KernelSource source{"tg_no_driver", "extern \"C\" __global__ void tg_no_driver(int* x) { *x = 1; }\n",
                                     {}, {}};
  EXPECT_GT(compile(source, scheduler::Arch::Sm90).cubin.size(), 0u);
}

}  // namespace
}  // namespace tilegrid::runtime
