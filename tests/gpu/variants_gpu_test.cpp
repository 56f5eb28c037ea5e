// Every kernel variant the nvrtc suite compiles (layouts x dtypes x grid methods x tiles x
// clusters x aligned and misaligned), run on small odd shapes and checked against an fp64 CPU
// reference. Small so that it runs under compute-sanitizer memcheck and racecheck
// (bench/device_sanitize.sh). TILEGRID_VARIANT_STRIDE=s runs every s-th variant only.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "codegen/emit.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/kernel_cache.h"
#include "runtime/matmul_run.h"
#include "support/gemm_cases.h"
#include "support/gpu_device.h"

namespace tilegrid::testing {
namespace {

void runAll(const std::vector<GemmCase>& all) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  const char* stride_env = std::getenv("TILEGRID_VARIANT_STRIDE");
  const size_t stride = stride_env ? std::max(1, std::atoi(stride_env)) : 1;
  struct Variant {
    scheduler::MatmulSchedule schedule;
    codegen::KernelSource source;
  };
  std::vector<Variant> variants;
  for (size_t i = 0; i < all.size(); i += stride) {
    if (all[i].overrides.arch == scheduler::Arch::Sm90 && device.arch() != scheduler::Arch::Sm90) {
      GTEST_SKIP() << "sm_90a kernels need an sm_90 device; this one is " << device.toString();
    }
    auto schedule = scheduler::schedule(all[i].problem, device, all[i].overrides);
    auto source = codegen::emit(schedule);
    variants.push_back({std::move(schedule), std::move(source)});
  }
  std::vector<const codegen::KernelSource*> sources;
  for (const Variant& v : variants) sources.push_back(&v.source);
  runtime::KernelCache::global().getAll(sources, device.arch());  // in parallel, before the runs
  runtime::RunOptions options;
  options.iterations = 0;
  options.reference = runtime::Reference::CpuFp64;
  for (const Variant& v : variants) {
    const runtime::RunResult result = runtime::runMatmul(v.schedule, v.source, options);
    ASSERT_TRUE(result.errors.has_value());
    EXPECT_TRUE(result.errors->passed) << v.source.kernel_name << ": norm rel " << result.errors->norm_rel
                                       << ", non-finite " << result.errors->non_finite;
  }
}

TEST(Variants, EverySm80VariantOnSmallShapes) { runAll(sm80SmallVariants()); }
TEST(Variants, EverySm90VariantOnSmallShapes) { runAll(sm90SmallVariants()); }

}  // namespace
}  // namespace tilegrid::testing
