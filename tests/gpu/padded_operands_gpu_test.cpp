// Operands whose pointer is off 16 bytes (a user's pointer into the middle of an allocation, the
// problem promising 2-byte alignment) on the GPU: read through padded copies (both families) or in
// narrower pieces (sm_80), against an fp64 CPU reference on random data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
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
    bool in_kernel = false;  // sm_90: the GEMM makes the copies, or a copy kernel before it
  };
  std::vector<Run> runs = {{Arch::Sm80, true}, {Arch::Sm80, false}};
  if (device.arch() == Arch::Sm90) runs.insert(runs.end(), {{Arch::Sm90, true, true}, {Arch::Sm90, true, false}});
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
      if (r.arch == Arch::Sm90) o.pads_in_kernel = r.in_kernel;
      const auto schedule = scheduler::schedule(p, device, o);
      ASSERT_EQ(schedule.params.pad_a && schedule.params.pad_b, r.pad) << schedule.params.toString();
      ASSERT_EQ(schedule.params.pads_in_kernel, r.in_kernel) << schedule.params.toString();
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

// sm_90 kernels that make their padded copies themselves: against cuBLAS on operands whose rows are
// off 16 bytes, in every layout, batched, computing C^T, in ping-pong kernels and in clusters with
// stream-K. Each Gemm runs twice on one workspace with different data: the second run must not read
// blocks the first left marked copied, and every run must leave the zeroed area (the pad flags and
// their count) zero.
TEST(PaddedOperands, CopiesMadeInTheKernelAreReadOnlyOnceCopied) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  if (device.arch() != Arch::Sm90) GTEST_SKIP() << "sm_90 kernels alone make their copies: " << device.toString();
  using scheduler::Layout;
  struct Case {
    int64_t m, n, k, batch;
    Layout layout;
    scheduler::DType dtype;
    std::optional<bool> pingpong;
  };
  const std::vector<Case> cases = {
      {333, 517, 259, 1, Layout::TN, scheduler::DType::BF16, {}},  {333, 517, 259, 1, Layout::NT, scheduler::DType::BF16, {}},
      {1001, 515, 257, 1, Layout::NN, scheduler::DType::BF16, {}}, {257, 1000, 130, 3, Layout::TT, scheduler::DType::BF16, {}},
      {4095, 1023, 1025, 1, Layout::TN, scheduler::DType::BF16, {}}, {40, 3001, 511, 1, Layout::TN, scheduler::DType::BF16, {}},
      {1031, 2047, 777, 1, Layout::TN, scheduler::DType::BF16, true}, {517, 333, 999, 2, Layout::NT, scheduler::DType::FP16, {}}};
  runtime::Stream stream;
  for (const Case& c : cases) {
    const scheduler::MatmulProblem p = makeProblem(c.m, c.n, c.k, c.layout, c.dtype, c.dtype, c.batch);
    scheduler::ScheduleOverrides o;
    o.pingpong = c.pingpong;
    const auto schedule = scheduler::schedule(p, device, o);
    const std::string label = p.toString() + " " + schedule.params.toString();
    ASSERT_TRUE(schedule.params.pads_in_kernel && (schedule.params.pad_a || schedule.params.pad_b)) << label;
    const Gemm gemm(schedule);
    runtime::DeviceBuffer workspace(gemm.workspaceSize());
    workspace.fill(0);
    const size_t zero_words = codegen::workspaceZeroBytes(device) / 4;
    for (uint64_t seed : {21, 22}) {
      runtime::MatmulBuffers buffers(p, seed);
      const std::vector<float> reference = runtime::cublasReference(buffers, stream.get());
      buffers.c.fill(0xff, stream.get());
      gemm.run(reinterpret_cast<const void*>(buffers.a.ptr()), reinterpret_cast<const void*>(buffers.b.ptr()),
               reinterpret_cast<void*>(buffers.c.ptr()), reinterpret_cast<void*>(workspace.ptr()), workspace.bytes(),
               stream.get());
      stream.synchronize();
      const runtime::ErrorStats e =
          runtime::compareOutputs(runtime::decode(buffers.c.toHost<uint8_t>(), p.out_dtype), reference, p.out_dtype);
      EXPECT_TRUE(e.passed) << label << " seed " << seed << ": norm rel " << e.norm_rel << ", non-finite " << e.non_finite;
      const std::vector<uint32_t> words = workspace.toHost<uint32_t>();
      ASSERT_GE(words.size(), zero_words) << label;
      const auto set = std::find_if(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(zero_words),
                                    [](uint32_t w) { return w != 0; });
      EXPECT_EQ(set, words.begin() + static_cast<std::ptrdiff_t>(zero_words))
          << label << " seed " << seed << " left word " << (set - words.begin()) << " of the zeroed area set";
    }
  }
}

}  // namespace
}  // namespace tilegrid::testing
