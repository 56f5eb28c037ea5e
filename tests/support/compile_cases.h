#pragma once
// Compiles GEMM cases with NVRTC, several at a time, and reports the ones that fail, spill or draw a
// ptxas warning (for sm_90a: C7510/C7511/C7508, serialized wgmma or an ignored setmaxnreg).
#include <cstddef>
#include <cstdint>
#include <exception>
#include <future>
#include <string>
#include <vector>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/scheduler/schedule.h"
#include "support/gemm_cases.h"

namespace tilegrid::testing {

// Bytes a compiled kernel spills, stores and loads.
inline int64_t spilledBytes(const runtime::CompiledKernel& kernel) {
  const auto& stats = kernel.statsFor();
  return stats.spill_stores + stats.spill_loads;
}

// What the same configuration spills with the shape compiled in at a long K (4096 and K's residue
// modulo 16, which keeps the operands' alignment): the register pressure of its tile and pipeline. A
// kernel that reads its shape at launch is the one kernel for every K, so it is held to that, not to
// what a short K lets ptxas fold away.
inline int64_t spilledAtLongK(const scheduler::MatmulSchedule& schedule, runtime::KernelCache& cache) {
  scheduler::MatmulParams params = schedule.params;
  params.specialize_shape = true;
  params.width_at_launch = false;  // with the shape compiled in, so is the width this launch runs
  scheduler::MatmulProblem problem = schedule.problem;
  problem.k = 4096 + problem.k % 16;
  problem.lda = problem.ldb = problem.stride_a = problem.stride_b = problem.stride_c = 0;
  problem.align_a = problem.align_b = 0;
  const auto specialized = scheduler::scheduleWith(problem.validate(), schedule.device, params);
  return spilledBytes(*cache.get(codegen::emit(specialized), params.arch));
}

// What a kernel that reads its shape at launch may spill beyond spilledAtLongK: its direct-store
// epilogue (C's rows not 16-byte aligned) addresses C in 64 bits from a leading dimension read at
// launch, which the heaviest tiles (192x192, 192x152 and 256x152 consumers) pay for with spilled
// registers; the worst variant, 256x152 C^T in split-merge order, spills 96 bytes against 8 with the
// shape compiled in (docs/runtime-shapes.md).
inline constexpr int64_t kRuntimeShapeSpillSlack = 88;

// Every `stride`-th case from the first, on the named device preset; "" when all compile cleanly:
// without ptxas warnings, and without spills (a tiled kernel that reads its shape at launch: no more
// than spilledAtLongK plus kRuntimeShapeSpillSlack).
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
          if (const int64_t spilled = spilledBytes(*kernel); spilled > 0) {
            const int64_t allowed =
                schedule.params.shapeAtLaunch() && !schedule.params.dot ? spilledAtLongK(schedule, cache) + kRuntimeShapeSpillSlack
                                                                        : 0;
            if (spilled > allowed) {
              failures += cases[i].label() + ": spills " + std::to_string(spilled) + " bytes (allowed " +
                          std::to_string(allowed) + ")\n";
            }
          }
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
