// `tilegrid run` and `tilegrid bench` on a real GPU: the run command with the fp64 host reference and
// no baseline (the check names its reference, and nothing of cuBLAS is timed or reported), and a
// small suite. Skips without a device.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/gpu_device.h"

namespace tilegrid {
namespace {

TEST(GpuRun, CpuReferenceWithoutBaselineReportsOnlyOurKernel) {
  scheduler::DeviceSpec device;
  if (auto why = testing::findDevice(device)) GTEST_SKIP() << *why;
  for (const char* arch : {"sm_80", "sm_90"}) {
    if (std::string(arch) == "sm_90" && device.arch() != scheduler::Arch::Sm90) continue;
    const auto r = testing::runCli({"run", "--m", "200", "--n", "264", "--k", "136", "--layout", "NT", "--arch", arch,
                                    "--reference", "cpu", "--baseline", "none", "--iters", "3", "--format", "json"});
    ASSERT_EQ(r.status, 0) << arch << ": " << r.out << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["check"]["reference"], "fp64 CPU") << arch;
    EXPECT_TRUE(j["check"]["passed"].get<bool>()) << arch;
    EXPECT_GT(j["ours"]["tflops"].get<double>(), 0) << arch;
    EXPECT_FALSE(j.contains("cublas")) << arch;
    EXPECT_FALSE(j.contains("ratio")) << arch;
  }
  const auto text = testing::runCli({"run", "--m", "64", "--n", "64", "--k", "64", "--reference", "cpu", "--baseline",
                                     "none", "--iters", "2"});
  ASSERT_EQ(text.status, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("check    vs fp64 CPU"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("no baseline timed"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("cuBLAS"), std::string::npos) << text.out;
}

// A problem whose buffers cannot fit in the device's memory is refused before anything is allocated
// or compiled: 150000^3 in bf16 needs A, B, C and a reference C of 45 GB each.
TEST(GpuRun, AProblemLargerThanTheDeviceMemoryIsRefusedClearly) {
  scheduler::DeviceSpec device;
  if (auto why = testing::findDevice(device)) GTEST_SKIP() << *why;
  const auto r = testing::runCli({"run", "--m", "150000", "--n", "150000", "--k", "150000", "--baseline", "none",
                                  "--iters", "1"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("MiB of device memory; the device has"), std::string::npos) << r.err;
}

// A suite's configurations of one problem run over the same buffers, and the next problem over
// buffers of its own: every case runs and passes its check, the configurations with kernels of their
// own, the problem after them too.
TEST(GpuBench, ConfigurationsOfAProblemShareItsBuffersAndEachIsChecked) {
  scheduler::DeviceSpec device;
  if (auto why = testing::findDevice(device)) GTEST_SKIP() << *why;
  if (device.arch() != scheduler::Arch::Sm90) GTEST_SKIP() << "the schedules are sm_90 tiles";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "tilegrid_bench_gpu_test";
  std::filesystem::create_directories(dir);
  const nlohmann::json suite = {
      {"about", "two problems, the first under three schedules"},
      {"cases",
       {{{"name", "first"}, {"category", "test"}, {"m", 200}, {"n", 264}, {"k", 4096}, {"layouts", {"TN"}},
         {"schedules", {{{"cta_tile", {64, 64, 64}}, {"cluster", 1}}, {{"cta_tile", {64, 128, 64}}, {"cluster", 1}}}}},
        {{"name", "second"}, {"category", "test"}, {"m", 96}, {"n", 80}, {"k", 512}, {"layouts", {"NT"}}}}}};
  const std::filesystem::path suite_file = dir / "suite.json", out_file = dir / "out.json";
  std::ofstream(suite_file) << suite.dump();
  const auto r = testing::runCli({"bench", "--suite", suite_file.string(), "--seconds", "0", "--turns", "3",
                                  "--json", out_file.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json cases = nlohmann::json::parse(std::ifstream(out_file))["cases"];
  ASSERT_EQ(cases.size(), 4u);
  std::set<std::string> first_kernels;
  for (const nlohmann::json& c : cases) {
    ASSERT_FALSE(c.contains("error")) << c.dump();
    EXPECT_TRUE(c["checks"]["ours"]["passed"].get<bool>()) << c["name"];
    if (c["m"] == 200) first_kernels.insert(c["kernel"].get<std::string>());
  }
  EXPECT_GE(first_kernels.size(), 2u);
}

}  // namespace
}  // namespace tilegrid
