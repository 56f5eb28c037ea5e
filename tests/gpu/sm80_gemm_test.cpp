// Generated sm_80 GEMMs on the GPU against an fp64 CPU reference, on random data, for every layout,
// dtype pair and grid method, with edge tiles, K tails, misaligned operands and batches.
#include <gtest/gtest.h>

#include "codegen/emit.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/matmul_run.h"
#include "support/gemm_cases.h"

namespace tilegrid::runtime {
namespace {

// Schedules, emits, runs and checks one case; skips without a GPU.
void expectCorrect(const testing::GemmCase& c, Reference reference) {
  scheduler::DeviceSpec device;
  try {
    device = currentDeviceSpec();
  } catch (const NoDeviceError& e) {
    GTEST_SKIP() << e.what();
  }
  const auto schedule = scheduler::schedule(c.problem, device, c.overrides);
  const codegen::KernelSource source = codegen::emit(schedule);
  RunOptions options;
  options.iterations = 0;
  options.reference = reference;
  const RunResult result = runMatmul(schedule, source, options);
  ASSERT_TRUE(result.errors.has_value());
  const ErrorStats& e = *result.errors;
  EXPECT_TRUE(e.passed) << source.kernel_name << ": norm rel " << e.norm_rel << ", max rel " << e.max_rel
                        << ", non-finite " << e.non_finite << " (tolerance " << e.tolerance << ")";
}

class Sm80Gemm : public ::testing::TestWithParam<testing::GemmCase> {};
TEST_P(Sm80Gemm, MatchesFp64Reference) { expectCorrect(GetParam(), Reference::CpuFp64); }

class Sm80VsCublas : public ::testing::TestWithParam<testing::GemmCase> {};
TEST_P(Sm80VsCublas, MatchesCublas) { expectCorrect(GetParam(), Reference::Cublas); }

std::string caseName(const ::testing::TestParamInfo<testing::GemmCase>& param_info) {
  std::string name = param_info.param.label();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, Sm80Gemm, ::testing::ValuesIn(testing::sm80RunCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Shapes, Sm80VsCublas, ::testing::ValuesIn(testing::sm80CublasCases()), caseName);

}  // namespace
}  // namespace tilegrid::runtime
