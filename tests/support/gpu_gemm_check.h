#pragma once
// Schedules, emits, runs and checks one GemmCase on the GPU (skipping without one); shared by the
// sm_80 and sm_90 GPU suites.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "codegen/emit.h"
#include "runtime/matmul_run.h"
#include "support/gemm_cases.h"
#include "support/gpu_device.h"

namespace tilegrid::testing {

inline void expectCorrect(const GemmCase& c, runtime::Reference reference) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  if (c.overrides.arch == scheduler::Arch::Sm90 && device.arch() != scheduler::Arch::Sm90) {
    GTEST_SKIP() << "sm_90a kernels need an sm_90 device; this one is " << device.toString();
  }
  const auto schedule = scheduler::schedule(c.problem, device, c.overrides);
  const codegen::KernelSource source = codegen::emit(schedule);
  runtime::RunOptions options;
  options.iterations = 0;
  options.reference = reference;
  const runtime::RunResult result = runtime::runMatmul(schedule, source, options);
  ASSERT_TRUE(result.errors.has_value());
  const runtime::ErrorStats& e = *result.errors;
  EXPECT_TRUE(e.passed) << source.kernel_name << ": norm rel " << e.norm_rel << ", max rel " << e.max_rel
                        << ", non-finite " << e.non_finite << " (tolerance " << e.tolerance << ")";
}

inline std::string caseName(const ::testing::TestParamInfo<GemmCase>& param_info) {
  std::string name = param_info.param.label();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace tilegrid::testing
