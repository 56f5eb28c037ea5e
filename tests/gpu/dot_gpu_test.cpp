// The dot kernel on the GPU: every case of dotCases against an fp64 host reference; and launches of
// dot and tiled kernels in turns sharing one workspace, each checked against cuBLAS, which leave the
// workspace's zeroed area zero.
#include <gtest/gtest.h>

#include "measure/matmul_run.h"
#include "support/gpu_gemm_check.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/runtime/host_dtype.h"

namespace tilegrid::testing {
namespace {

using scheduler::DType;
using scheduler::Layout;

void* pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

TEST(DotGpu, MatchesTheFp64ReferenceOnEveryCase) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  const std::vector<GemmCase> cases = dotCases();
  for (const GemmCase& c : cases) {
    ASSERT_TRUE(scheduler::schedule(c.problem, device, c.overrides).params.dot.has_value()) << c.label();
  }
  expectAllCorrect(cases, runtime::Reference::CpuFp64);
}

TEST(DotGpu, LeavesTheWorkspaceZeroedBetweenKernelsSharingIt) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  // Two dot kernels (many chunks in two batch entries; one chunk) and, on sm_90, a tiled kernel whose
  // pieces add their sums in the same zeroed area.
  const auto dot = [&](const scheduler::MatmulProblem& p) {
    scheduler::ScheduleOverrides o;
    o.dot = true;
    return Gemm(scheduler::schedule(p, device, o));
  };
  std::vector<Gemm> gemms = {dot(makeProblem(6, 6, 300000, Layout::NT, DType::BF16, DType::BF16, 2)),
                             dot(makeProblem(2, 7, 50, Layout::TN, DType::BF16, DType::FP32))};
  ASSERT_TRUE(gemms[0].schedule().params.dot && gemms[1].schedule().params.dot);
  if (device.arch() == scheduler::Arch::Sm90) {
    gemms.push_back(Gemm(makeProblem(64, 64, 65536, Layout::TN, DType::BF16, DType::BF16)));
    ASSERT_FALSE(gemms.back().schedule().params.dot);
  }
  size_t bytes = 0;
  for (const Gemm& g : gemms) bytes = std::max(bytes, g.workspaceSize());
  runtime::DeviceBuffer workspace(bytes);
  workspace.fill(0, nullptr);
  std::vector<runtime::MatmulBuffers> buffers;
  std::vector<std::vector<float>> references;
  for (size_t i = 0; i < gemms.size(); ++i) {
    buffers.emplace_back(gemms[i].problem(), 7 + i);
    references.push_back(runtime::cublasReference(buffers.back(), nullptr));
  }
  // Each kernel three times, in turns.
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < gemms.size(); ++i) {
      runtime::MatmulBuffers& b = buffers[i];
      b.c.fill(0xff, nullptr);
      gemms[i].run(pointer(b.a.ptr()), pointer(b.b.ptr()), pointer(b.c.ptr()), pointer(workspace.ptr()), bytes, nullptr);
      TG_CU(cuStreamSynchronize, nullptr);
      const scheduler::MatmulProblem& p = b.problem;
      const runtime::ErrorStats e = runtime::compareOutputs(
          runtime::denseC(p, runtime::decode(b.c.toHost<uint8_t>(), p.out_dtype)), references[i], p.out_dtype);
      EXPECT_TRUE(e.passed) << "round " << round << ", " << p.toString() << ": norm rel " << e.norm_rel;
    }
  }
  const std::vector<uint32_t> words = workspace.toHost<uint32_t>();
  const size_t zeroed = codegen::workspaceZeroBytes(device) / 4;
  size_t nonzero = 0;
  for (size_t w = 0; w < zeroed; ++w) nonzero += words[w] != 0;
  EXPECT_EQ(nonzero, 0u) << "words of the workspace's zeroed area left nonzero";
}

}  // namespace
}  // namespace tilegrid::testing
