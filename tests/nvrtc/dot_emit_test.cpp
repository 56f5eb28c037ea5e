// Every dot kernel the GPU suite runs compiles with NVRTC for both families' devices, without spills
// or ptxas warnings, and so do the largest configurations (8x8 sums) of every read width.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <future>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "support/gemm_cases.h"

namespace tilegrid::codegen {
namespace {

std::string compileDot(const scheduler::MatmulProblem& problem, const std::string& preset, runtime::KernelCache& cache) {
  const auto device = scheduler::DeviceSpec::preset(preset);
  scheduler::ScheduleOverrides dot;
  dot.dot = true;
  const scheduler::MatmulSchedule s = scheduler::schedule(problem, device, dot);
  if (!s.params.dot) return problem.toString() + ": not a dot kernel (" + s.params.toString() + ")\n";
  const KernelSource source = emit(s);
  const auto kernel = cache.get(source, device.arch());
  std::string failures;
  for (const std::string& w : kernel->warnings) failures += s.problem.toString() + ": " + w + "\n";
  const auto& stats = kernel->statsFor();
  if (stats.spill_stores + stats.spill_loads > 0) {
    failures += fmt::format("{} ({}): spills {} bytes\n", problem.toString(), source.kernel_name,
                            stats.spill_stores + stats.spill_loads);
  }
  return failures;
}

TEST(DotEmit, SuiteKernelsCompileWithoutSpills) {
  runtime::KernelCache cache;
  std::vector<scheduler::MatmulProblem> problems;
  for (const testing::GemmCase& c : testing::dotCases()) problems.push_back(c.problem);
  // The largest sums at every read width: 16-byte reads, narrower ones (a leading dimension off 16
  // bytes), and one element (MN-major operands).
  for (const int64_t lda : {4096, 4098, 4097}) {
    problems.push_back(testing::withStrides(testing::makeProblem(8, 8, 4096, scheduler::Layout::TN, scheduler::DType::BF16,
                                                                 scheduler::DType::BF16),
                                            lda, 0, 0, 0, 0, 0));
  }
  problems.push_back(testing::makeProblem(8, 8, 4096, scheduler::Layout::NN, scheduler::DType::FP16, scheduler::DType::FP32));
  std::vector<std::future<std::string>> results;
  for (const char* preset : {"sm_90", "sm_80"}) {
    results.push_back(std::async(std::launch::async, [&, preset] {
      std::string failures;
      for (const auto& p : problems) failures += compileDot(p, preset, cache);
      return failures;
    }));
  }
  for (auto& r : results) {
    const std::string failures = r.get();
    EXPECT_TRUE(failures.empty()) << failures;
  }
}

}  // namespace
}  // namespace tilegrid::codegen
