// Every kernel variant the nvrtc suite compiles (layouts x dtypes x grid methods x tiles x
// clusters x aligned and misaligned), run on small odd shapes and checked against an fp64 CPU
// reference. Small so that it runs under compute-sanitizer memcheck and racecheck
// (bench/device_sanitize.sh). TILEGRID_VARIANT_STRIDE=s runs every s-th variant only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

void runAll(const std::vector<GemmCase>& all) {
  const char* stride_env = std::getenv("TILEGRID_VARIANT_STRIDE");
  const size_t stride = stride_env ? static_cast<size_t>(std::max(1, std::atoi(stride_env))) : 1;
  std::vector<GemmCase> selected;
  for (size_t i = 0; i < all.size(); i += stride) selected.push_back(all[i]);
  expectAllCorrect(selected, runtime::Reference::CpuFp64);
}

TEST(Variants, EverySm80VariantOnSmallShapes) { runAll(sm80SmallVariants()); }
TEST(Variants, EverySm90VariantOnSmallShapes) { runAll(sm90SmallVariants()); }

}  // namespace
}  // namespace tilegrid::testing
