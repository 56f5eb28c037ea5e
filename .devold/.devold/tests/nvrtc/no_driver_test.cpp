// Runs with TILEGRID_LIBCUDA=/nonexistent (set by ctest): a machine without a driver compiles
// everything and launches nothing, saying why.
#include <gtest/gtest.h>

#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/compiler.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/gemm.h"
#include "support/cli_runner.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace tilegrid::runtime {
namespace {

TEST(NoDriver, LaunchingFailsClearlyAndCompilingWorks) {
  ASSERT_STREQ(std::getenv("TILEGRID_LIBCUDA"), "/nonexistent");
  try {
    currentDevice();
    FAIL() << "found a device through a driver that does not exist";
  } catch (const NoDeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA driver found (/nonexistent: /nonexistent: cannot open shared object file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(DeviceBuffer(1024), NoDeviceError);
  EXPECT_THROW(currentDeviceSpec(), NoDeviceError);
  const codegen::KernelSource source{"tg_no_driver", "extern \"C\" __global__ void tg_no_driver(int* x) { *x = 1; }\n",
                                     {}, {}};
  EXPECT_GT(compile(source, scheduler::Arch::Sm90).cubin.size(), 0u);
}

// The library's GEMM calls say there is no device; they neither crash nor cache the failure as a plan,
// and bad input is still refused as bad input first. `tilegrid bench` says it needs a GPU (exit 2).
TEST(NoDriver, GemmAndMatmulSayThereIsNoDevice) {
  MatmulProblem p;
  p.m = p.n = p.k = 256;
  const std::vector<char> memory(1 << 20);
  void* c = const_cast<char*>(memory.data());
  for (int attempt = 0; attempt < 2; ++attempt) {
    EXPECT_THROW(Gemm{p}, NoDeviceError);
    EXPECT_THROW(matmul(p, memory.data(), memory.data(), c), NoDeviceError);
  }
  MatmulProblem bad = p;
  bad.k = 0;
  EXPECT_THROW(matmul(bad, memory.data(), memory.data(), c), UserError);
  const auto r = testing::runCli({"bench", "--suite", std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/shapes.json"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("tilegrid bench runs on a GPU: no CUDA driver found"), std::string::npos) << r.err;
  // A bad kernel family is the user's error, said before the missing GPU.
  const auto arch = testing::runCli(
      {"bench", "--suite", std::string(TILEGRID_SOURCE_DIR) + "/bench/suites/large.json", "--arch", "sm_70"});
  EXPECT_EQ(arch.status, 2) << arch.out << arch.err;
  EXPECT_NE(arch.err.find("unknown arch 'sm_70': expected sm_80 or sm_90"), std::string::npos) << arch.err;
}

// Without a GPU, a sweep still plans, emits and compiles every candidate, and says it timed none.
TEST(NoDriver, SweepCompilesEveryCandidateAndSaysWhyItDidNotTime) {
  const std::string json = (std::filesystem::temp_directory_path() / "tilegrid_no_driver_sweep.json").string();
  const auto r = testing::runCli({"sweep", "--m", "300", "--n", "200", "--k", "64", "--methods", "none",
                                  "swizzle-merge", "--factors", "2", "4,2", "--out", json});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("not timed: no CUDA driver found"), std::string::npos) << r.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_FALSE(j["timed"].get<bool>());
  // none x {m, n}, swizzle-merge x {2, (4,2)} x {m, n}, and the heuristic's own choice unless it is one of them.
  EXPECT_GE(j["entries"].size(), 6u);
  EXPECT_LE(j["entries"].size(), 7u);
  for (const auto& e : j["entries"]) {
    EXPECT_GT(e["registers"].get<int>(), 0) << e.dump();
    EXPECT_FALSE(e.contains("tflops"));
  }
  std::filesystem::remove(json);
}

TEST(NoDriver, SweepRejectsWhatItCannotDo) {
  const std::vector<std::string> problem{"sweep", "--m", "300", "--n", "200", "--k", "64", "--methods", "none"};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--apply"}, "--apply needs a GPU"},
      {{"--plot", "sweep.svg"}, "--plot needs measured times"},
      {{"--plot", "sweep.png"}, "must end in .svg"},
      {{"--out", "sweep.txt"}, "must end in .csv or .json"},
      {{"--methods", "hilbert"}, "expected none, split-merge or swizzle-merge"},
      {{"--groups", "k"}, "expected m or n"},
      {{"--factors", "0"}, "factor"},
      {{"--iters", "0"}, "--iters"},
      {{"--factor", "4"}, "--factor"},  // the sweep varies the traversal; --factors is its option
  };
  for (const auto& [extra, needle] : cases) {
    std::vector<std::string> args = problem;
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = testing::runCli(args);
    EXPECT_EQ(r.status, 2) << extra[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << extra[0] << ": " << r.err;
  }
}

}  // namespace
}  // namespace tilegrid::runtime
