// Misaligned operands read by TMA in row classes (tilegrid/scheduler/row_classes.h) on the GPU:
// every permutation the classes make (the tile's M, N or K), beside padded copies, clusters,
// stream-K, C^T, fused epilogues and 8-bit inputs, against cuBLAS; and a pointer 2 bytes off 16,
// against an fp64 host reference.
#include <gtest/gtest.h>

#include <cstring>

#include "tilegrid/runtime/host_dtype.h"
#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

TEST(RowClasses, MisalignedOperandsMatchCublas) {
  expectAllCorrect(sm90RowClassCases(), runtime::Reference::Cublas);
}

// Each class map starts at the 16-byte boundary before its first row, wherever the pointer is.
TEST(RowClasses, PointersOffSixteenBytesShiftEveryClass) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  if (device.arch() != scheduler::Arch::Sm90) GTEST_SKIP() << "row classes are sm_90's";
  for (scheduler::Layout layout : {scheduler::Layout::TN, scheduler::Layout::NT}) {
    scheduler::MatmulProblem p = makeProblem(300, 200, 72, layout, scheduler::DType::BF16, scheduler::DType::BF16);
    p.align_a = p.align_b = 1;
    p.validate();
    const size_t a_elems = static_cast<size_t>(p.m * p.k), b_elems = static_cast<size_t>(p.n * p.k);
    const std::vector<float> a = runtime::randomValues(a_elems, 21), b = runtime::randomValues(b_elems, 22);
    // A starts 2 bytes and B 6 bytes into buffers 16 bytes longer than they are.
    const auto staged = [](const std::vector<float>& values, size_t offset) {
      std::vector<uint8_t> bytes(values.size() * 2 + 16, 0);
      const std::vector<uint8_t> encoded = runtime::encode(values, scheduler::DType::BF16);
      std::memcpy(bytes.data() + offset, encoded.data(), encoded.size());
      return bytes;
    };
    const std::vector<uint8_t> a_host = staged(a, 2), b_host = staged(b, 6);
    runtime::DeviceBuffer a_dev(a_host.size()), b_dev(b_host.size()), c_dev(static_cast<size_t>(p.m * p.n) * 2);
    a_dev.copyFromHost(a_host.data(), a_host.size());
    b_dev.copyFromHost(b_host.data(), b_host.size());
    const auto exact = [](const std::vector<float>& v) {
      return runtime::decode(runtime::encode(v, scheduler::DType::BF16), scheduler::DType::BF16);
    };
    const std::vector<float> reference = runtime::referenceGemm(p, exact(a), exact(b));
    const auto schedule = scheduler::schedule(p, device);
    ASSERT_TRUE(schedule.params.row_classes_a && schedule.params.row_classes_b) << schedule.params.toString();
    const Gemm gemm(schedule);
    runtime::MatmulLaunch launch(gemm, runtime::MatmulOperands{a_dev.ptr() + 2, b_dev.ptr() + 6, c_dev.ptr(), {}});
    c_dev.fill(0xff);
    launch();
    runtime::synchronizeDevice();
    const runtime::ErrorStats e = runtime::compareOutputs(
        runtime::decode(c_dev.toHost<uint8_t>(), scheduler::DType::BF16), reference, scheduler::DType::BF16);
    EXPECT_TRUE(e.passed) << gemm.source().kernel_name << ": norm rel " << e.norm_rel << ", non-finite " << e.non_finite;
  }
}

}  // namespace
}  // namespace tilegrid::testing
