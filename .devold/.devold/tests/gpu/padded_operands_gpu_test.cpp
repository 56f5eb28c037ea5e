// Operands whose pointer is off 16 bytes (a user's pointer into the middle of an allocation, the
// problem promising 2-byte alignment) on the GPU: read through padded copies (both families) or in
// narrower pieces (sm_80), against an fp64 CPU reference on random data.
#include <gtest/gtest.h>

#include <cstring>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "measure/matmul_run.h"
#include "support/gemm_cases.h"
#include "support/gpu_device.h"

namespace tilegrid::testing {
namespace {

using scheduler::Arch;

TEST(PaddedOperands, PointersOffSixteenBytesAreReadThroughTheCopy) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  struct Run {
    Arch arch;
    bool pad;
  };
  std::vector<Run> runs = {{Arch::Sm80, true}, {Arch::Sm80, false}};
  if (device.arch() == Arch::Sm90) runs.push_back({Arch::Sm90, true});
  for (scheduler::Layout layout : {scheduler::Layout::TN, scheduler::Layout::NT}) {
    scheduler::MatmulProblem p = makeProblem(300, 200, 64, layout, scheduler::DType::BF16, scheduler::DType::BF16);
    p.align_a = p.align_b = 1;
    p.validate();
    // A and B start 2 bytes into buffers 16 bytes longer than they are.
    const size_t a_bytes = static_cast<size_t>(p.m * p.k) * 2, b_bytes = static_cast<size_t>(p.n * p.k) * 2;
    const std::vector<float> a = runtime::randomValues(a_bytes / 2, 11), b = runtime::randomValues(b_bytes / 2, 12);
    const auto staged = [](const std::vector<float>& values) {
      std::vector<uint8_t> bytes(values.size() * 2 + 16, 0);
      const std::vector<uint8_t> encoded = runtime::encode(values, scheduler::DType::BF16);
      std::memcpy(bytes.data() + 2, encoded.data(), encoded.size());
      return bytes;
    };
    const std::vector<uint8_t> a_host = staged(a), b_host = staged(b);
    runtime::DeviceBuffer a_dev(a_host.size()), b_dev(b_host.size()), c_dev(static_cast<size_t>(p.m * p.n) * 2);
    a_dev.copyFromHost(a_host.data(), a_host.size());
    b_dev.copyFromHost(b_host.data(), b_host.size());
    const std::vector<float> reference =
        runtime::referenceGemm(p, runtime::decode(runtime::encode(a, scheduler::DType::BF16), scheduler::DType::BF16),
                               runtime::decode(runtime::encode(b, scheduler::DType::BF16), scheduler::DType::BF16));
    for (const Run& r : runs) {
      scheduler::ScheduleOverrides o;
      o.arch = r.arch;
      o.pad = r.pad;
      const auto schedule = scheduler::schedule(p, device, o);
      ASSERT_EQ(schedule.params.pad_a && schedule.params.pad_b, r.pad) << schedule.params.toString();
      const codegen::KernelSource source = codegen::emit(schedule);
      runtime::MatmulLaunch launch(Gemm(schedule), runtime::MatmulOperands{a_dev.ptr() + 2, b_dev.ptr() + 2, c_dev.ptr(), {}});
      c_dev.fill(0xff);
      launch();
      runtime::synchronizeDevice();
      const runtime::ErrorStats e = runtime::compareOutputs(
          runtime::decode(c_dev.toHost<uint8_t>(), scheduler::DType::BF16), reference, scheduler::DType::BF16);
      EXPECT_TRUE(e.passed) << source.kernel_name << ": norm rel " << e.norm_rel << ", non-finite " << e.non_finite;
    }
  }
}

}  // namespace
}  // namespace tilegrid::testing
