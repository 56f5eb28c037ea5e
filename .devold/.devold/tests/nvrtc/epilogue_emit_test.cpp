// Every fused-epilogue kind compiles with NVRTC for both kernel families on the shapes the GPU suite
// runs, without spills or ptxas warnings; and the pointwise kernel of the unfused pair compiles for
// each.
#include <gtest/gtest.h>

#include "tilegrid/codegen/pointwise_epilogue.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "support/compile_cases.h"
#include "support/gemm_cases.h"

namespace tilegrid::codegen {
namespace {

// Under AddressSanitizer the emitter runs about ten times slower: every third case there, the first of
// each kind's three shapes (the kinds take the shapes in turn, so between them they still cover every
// shape).
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kCaseStride = 3;
#else
constexpr size_t kCaseStride = 1;
#endif

TEST(EpilogueEmit, Sm80KindsCompileWithoutSpills) {
  runtime::KernelCache cache;
  const std::string failures = testing::compileCases(testing::epilogueCases(scheduler::Arch::Sm80), "sm_80", kCaseStride, cache);
  EXPECT_TRUE(failures.empty()) << failures;
}

TEST(EpilogueEmit, Sm90KindsCompileWithoutSpills) {
  runtime::KernelCache cache;
  const std::string failures = testing::compileCases(testing::epilogueCases(scheduler::Arch::Sm90), "sm_90", kCaseStride, cache);
  EXPECT_TRUE(failures.empty()) << failures;
}

TEST(EpilogueEmit, PointwiseKernelsCompile) {
  runtime::KernelCache cache;
  for (const testing::GemmCase& c : testing::epilogueCases(scheduler::Arch::Sm90)) {
    const KernelSource source = emitPointwiseEpilogue(c.problem);
    for (const scheduler::Arch arch : {scheduler::Arch::Sm80, scheduler::Arch::Sm90}) {
      const auto kernel = cache.get(source, arch);
      std::string warnings;
      for (const std::string& w : kernel->warnings) warnings += w + "\n";
      EXPECT_TRUE(warnings.empty()) << c.label() << ":\n" << warnings;
    }
  }
}

}  // namespace
}  // namespace tilegrid::codegen
