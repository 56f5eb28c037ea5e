#pragma once
// Schedules, emits, runs and checks GemmCases on the GPU (skipping without one); shared by the GPU
// suites.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "measure/matmul_run.h"
#include "support/gemm_cases.h"
#include "support/gpu_device.h"

namespace tilegrid::testing {

// Schedules and emits every case for this GPU, compiles them all at once (in parallel), then runs
// and checks each. Skips without a GPU, or with sm_90a cases on another one. `context` starts each
// failure's message (a seed, say).
inline void expectAllCorrect(const std::vector<GemmCase>& cases, runtime::Reference reference,
                             const std::string& context = "") {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  struct Scheduled {
    const GemmCase* gemm;
    scheduler::MatmulSchedule schedule;
    codegen::KernelSource source;
  };
  std::vector<Scheduled> all;
  for (const GemmCase& c : cases) {
    if (c.overrides.arch == scheduler::Arch::Sm90 && device.arch() != scheduler::Arch::Sm90) {
      GTEST_SKIP() << "sm_90a kernels need an sm_90 device; this one is " << device.toString();
    }
    auto schedule = scheduler::schedule(c.problem, device, c.overrides);
    auto source = codegen::emit(schedule);
    all.push_back({&c, std::move(schedule), std::move(source)});
  }
  std::vector<const codegen::KernelSource*> sources;
  for (const Scheduled& s : all) sources.push_back(&s.source);
  runtime::KernelCache::global().getAll(sources, device.arch());
  runtime::RunOptions options;
  options.iterations = 0;
  options.reference = reference;
  for (const Scheduled& s : all) {
    const runtime::RunResult result = runtime::runMatmul(s.schedule, s.source, options);
    ASSERT_TRUE(result.errors.has_value());
    const runtime::ErrorStats& e = *result.errors;
    EXPECT_TRUE(e.passed) << context << s.gemm->label() << " (" << s.source.kernel_name << "): norm rel "
                          << e.norm_rel << ", max rel " << e.max_rel << ", non-finite " << e.non_finite
                          << " (tolerance " << e.tolerance << "), aux norm rel " << e.aux_norm_rel
                          << " (-1: none), writes between C's rows " << e.gap_writes;
  }
}

inline void expectCorrect(const GemmCase& c, runtime::Reference reference) { expectAllCorrect({c}, reference); }

inline std::string caseName(const ::testing::TestParamInfo<GemmCase>& param_info) {
  std::string name = param_info.param.label();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace tilegrid::testing
