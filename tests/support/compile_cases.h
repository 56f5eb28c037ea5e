#pragma once
// Compiles GEMM cases with NVRTC, several at a time, and reports the ones that fail, spill or draw a
// ptxas warning (for sm_90a: C7510/C7511/C7508, serialized wgmma or an ignored setmaxnreg).
#include <cstddef>
#include <exception>
#include <future>
#include <string>
#include <vector>

#include "codegen/emit.h"
#include "runtime/kernel_cache.h"
#include "scheduler/schedule.h"
#include "support/gemm_cases.h"

namespace tilegrid::testing {

// Every `stride`-th case from the first, on the named device preset; "" when all compile cleanly.
inline std::string compileCases(const std::vector<GemmCase>& cases, const std::string& preset, size_t stride,
                                runtime::KernelCache& cache) {
  const auto device = scheduler::DeviceSpec::preset(preset);
  // NVRTC is thread-safe: compile the variants four at a time.
  const size_t workers = 4;
  std::vector<std::future<std::string>> results;
  for (size_t w = 0; w < workers; ++w) {
    results.push_back(std::async(std::launch::async, [&, w] {
      std::string failures;
      for (size_t i = w * stride; i < cases.size(); i += workers * stride) {
        try {
          const auto schedule = scheduler::schedule(cases[i].problem, device, cases[i].overrides);
          const codegen::KernelSource source = codegen::emit(schedule);
          const auto kernel = cache.get(source, schedule.params.arch);
          const auto& stats = kernel->statsFor();
          if (stats.spill_stores + stats.spill_loads > 0) failures += cases[i].label() + ": spills\n";
          for (const std::string& warning : kernel->warnings) failures += cases[i].label() + ": " + warning + "\n";
        } catch (const std::exception& e) {
          failures += cases[i].label() + ": " + e.what() + "\n";
        }
      }
      return failures;
    }));
  }
  std::string failures;
  for (auto& r : results) failures += r.get();
  return failures;
}

}  // namespace tilegrid::testing
