// `tilegrid sweep` on a real GPU: every candidate checked and timed, ranked fastest first, and
// --apply makes `tilegrid run` use the winner. Skips without a device.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "support/cli_runner.h"
#include "support/gpu_device.h"

namespace tilegrid {
namespace {

TEST(GpuSweep, RanksChecksAppliesAndRunUsesTheWinner) {
  scheduler::DeviceSpec device;
  if (auto why = testing::findDevice(device)) GTEST_SKIP() << *why;
  const auto dir = std::filesystem::temp_directory_path() / ("tilegrid_gpu_sweep_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::setenv("TILEGRID_CACHE_DIR", dir.c_str(), 1), 0);
  const std::string json = (dir / "sweep.json").string(), plot = (dir / "sweep.svg").string();
  const auto sweep = testing::runCli({"sweep", "--m", "1000", "--n", "1500", "--k", "512", "--methods", "none",
                                      "split-merge", "swizzle-merge", "--factors", "2", "4", "--groups", "m",
                                      "--iters", "6", "--out", json, "--plot", plot, "--apply"});
  ASSERT_EQ(sweep.status, 0) << sweep.out << sweep.err;
  EXPECT_NE(sweep.out.find("applied "), std::string::npos) << sweep.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j["timed"].get<bool>());
  ASSERT_GE(j["entries"].size(), 5u);
  double previous = 0;
  for (const auto& e : j["entries"]) {
    EXPECT_TRUE(e["check"]["passed"].get<bool>()) << e.dump();
    EXPECT_GT(e["tflops"].get<double>(), 0);
    EXPECT_GE(e["median_ms"].get<double>(), previous) << "not ranked fastest first";
    previous = e["median_ms"].get<double>();
  }
  EXPECT_GT(std::filesystem::file_size(plot), 1000u);
  const auto winner = j["entries"][0];
  const auto run = testing::runCli({"run", "--m", "1000", "--n", "1500", "--k", "512", "--iters", "3"});
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("tuned    grid: tuned by tilegrid sweep --apply (" + winner["method"].get<std::string>()),
            std::string::npos)
      << run.out;
  ::unsetenv("TILEGRID_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tilegrid
