// tilegrid::Gemm and tilegrid::matmul as an application calls them: from many threads at once, on
// mixed shapes, on their own streams and on shared ones, with every result checked against cuBLAS.
#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <tuple>

#include "measure/matmul_run.h"
#include "support/gemm_cases.h"
#include "support/gpu_device.h"
#include "tilegrid/codegen/emit.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/runtime/host_dtype.h"

namespace tilegrid::testing {
namespace {

using scheduler::DType;
using scheduler::Layout;

void* pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// C of `buffers` after a launch, against cuBLAS on the same inputs.
runtime::ErrorStats checkC(const runtime::MatmulBuffers& buffers, const std::vector<float>& reference) {
  const scheduler::MatmulProblem& p = buffers.problem;
  return runtime::compareOutputs(runtime::denseC(p, runtime::decode(buffers.c.toHost<uint8_t>(), p.out_dtype)),
                                 reference, p.out_dtype);
}

// Problems an application mixes: aligned and not, tails in every dimension, NT, fp32 output, a
// batch, non-packed leading dimensions, rows off 16 bytes (padded copies in the workspace), and a
// problem under a wave (stream-K in the workspace).
std::vector<scheduler::MatmulProblem> mixedProblems() {
  return {makeProblem(1024, 1024, 1024, Layout::TN, DType::BF16, DType::BF16),
          makeProblem(1000, 900, 700, Layout::TN, DType::BF16, DType::BF16),
          makeProblem(333, 1027, 515, Layout::NT, DType::FP16, DType::FP32),
          makeProblem(256, 384, 512, Layout::NN, DType::BF16, DType::BF16, 3),
          withStrides(makeProblem(512, 640, 768, Layout::TN, DType::BF16, DType::BF16), 800, 776, 700, 0, 0, 0),
          makeProblem(777, 555, 333, Layout::TN, DType::BF16, DType::BF16),
          makeProblem(64, 4096, 4096, Layout::TN, DType::BF16, DType::BF16),
          makeProblem(512, 512, 8192, Layout::TT, DType::BF16, DType::BF16)};
}

TEST(GemmApi, MatmulFromEightThreadsOnMixedShapesIsRight) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  const std::vector<scheduler::MatmulProblem> problems = mixedProblems();
  constexpr int kThreads = 8, kRounds = 2;
  // Threads 0-3 each have a stream of their own; 4 and 5 share one; 6 and 7 use the per-thread
  // default stream.
  runtime::Stream own[4], shared;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        CUstream stream = t < 4 ? own[t].get() : t < 6 ? shared.get() : CU_STREAM_PER_THREAD;
        for (int round = 0; round < kRounds; ++round) {
          // Every thread walks the problems from a different start, so first calls collide.
          for (size_t i = 0; i < problems.size(); ++i) {
            const scheduler::MatmulProblem& p = problems[(i + static_cast<size_t>(t)) % problems.size()];
            runtime::MatmulBuffers buffers(p, 100 * static_cast<uint64_t>(t) + i);
            const std::vector<float> reference = runtime::cublasReference(buffers, stream);
            buffers.c.fill(0xff, stream);
            matmul(p, pointer(buffers.a.ptr()), pointer(buffers.b.ptr()), pointer(buffers.c.ptr()), stream);
            TG_CU(cuStreamSynchronize, stream);
            const runtime::ErrorStats e = checkC(buffers, reference);
            if (!e.passed) {
              failures[static_cast<size_t>(t)] += p.toString() + ": norm rel " + std::to_string(e.norm_rel) +
                                                  ", non-finite " + std::to_string(e.non_finite) + "; ";
            }
          }
        }
      } catch (const std::exception& e) {
        failures[static_cast<size_t>(t)] += e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[static_cast<size_t>(t)], "") << "thread " << t;
}

// Two Gemms, one with stream-K partial sums and one with padded operand copies, take turns on one
// workspace zeroed once: neither disturbs the other's flags.
// Kernels that hand partial sums over, that accumulate them in the workspace's zeroed area, that add
// them in a fixed order (GemmOptions::deterministic), and padded copies, all in one workspace: every
// result stays right, and the deterministic one gives the same bits every time.
TEST(GemmApi, GemmsShareOneWorkspace) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "stream-K and padded copies (sm_90 kernels)")) GTEST_SKIP() << *why;
  const scheduler::MatmulProblem split = makeProblem(512, 512, 8192, Layout::TN, DType::BF16, DType::BF16);
  const scheduler::MatmulProblem small = makeProblem(64, 64, 65536, Layout::TN, DType::BF16, DType::BF16);
  const scheduler::MatmulProblem padded = makeProblem(1001, 515, 257, Layout::TN, DType::BF16, DType::BF16);
  GemmOptions same_bits;
  same_bits.deterministic = true;
  const Gemm a(split), summed(small), ordered(small, same_bits), b(padded);
  ASSERT_TRUE(a.schedule().params.stream_k && a.schedule().workSplit().reduction != scheduler::SplitReduction::None)
      << a.schedule().params.toString();
  ASSERT_EQ(summed.schedule().workSplit().reduction, scheduler::SplitReduction::Accumulated)
      << summed.schedule().workSplit().describe();
  ASSERT_EQ(ordered.schedule().workSplit().reduction, scheduler::SplitReduction::InSlices)
      << ordered.schedule().workSplit().describe();
  EXPECT_EQ(summed.source().cuda, ordered.source().cuda) << "one kernel does both: the plan passed at launch differs";
  ASSERT_TRUE(b.schedule().params.pad_a || b.schedule().params.pad_b) << b.schedule().params.toString();
  runtime::DeviceBuffer workspace(std::max({a.workspaceSize(), summed.workspaceSize(), b.workspaceSize()}));
  workspace.fill(0);
  runtime::MatmulBuffers buffers_a(split, 1), buffers_small(small, 3), buffers_ordered(small, 3), buffers_b(padded, 2);
  runtime::Stream stream;
  const std::vector<float> ref_a = runtime::cublasReference(buffers_a, stream.get());
  const std::vector<float> ref_small = runtime::cublasReference(buffers_small, stream.get());
  const std::vector<float> ref_b = runtime::cublasReference(buffers_b, stream.get());
  std::vector<uint8_t> ordered_bits;
  for (int round = 0; round < 3; ++round) {
    for (auto [gemm, buffers, ref] : {std::tuple{&a, &buffers_a, &ref_a}, std::tuple{&b, &buffers_b, &ref_b},
                                      std::tuple{&summed, &buffers_small, &ref_small},
                                      std::tuple{&ordered, &buffers_ordered, &ref_small}}) {
      buffers->c.fill(0xff, stream.get());
      gemm->run(pointer(buffers->a.ptr()), pointer(buffers->b.ptr()), pointer(buffers->c.ptr()),
                pointer(workspace.ptr()), workspace.bytes(), stream.get());
      stream.synchronize();
      const runtime::ErrorStats e = checkC(*buffers, *ref);
      EXPECT_TRUE(e.passed) << gemm->source().kernel_name << " round " << round << ": norm rel " << e.norm_rel;
    }
    const std::vector<uint8_t> bits = buffers_ordered.c.toHost<uint8_t>();
    if (round == 0) ordered_bits = bits;
    EXPECT_TRUE(bits == ordered_bits) << "round " << round << ": the deterministic Gemm changed C's bits";
  }
}

// run() refuses what it cannot launch, naming the operand, before queueing anything. A copy of a
// Gemm shares its plan and runs alike.
TEST(GemmApi, RunRefusesBadArgumentsAndCopiesShareThePlan) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  const scheduler::MatmulProblem p = makeProblem(512, 512, 8192, Layout::TN, DType::BF16, DType::BF16);
  const Gemm gemm(p);
  const Gemm copy = gemm;
  EXPECT_EQ(&copy.schedule(), &gemm.schedule());
  runtime::MatmulBuffers buffers(p, 3);
  void* a = pointer(buffers.a.ptr());
  void* b = pointer(buffers.b.ptr());
  void* c = pointer(buffers.c.ptr());
  const size_t need = gemm.workspaceSize();
  runtime::DeviceBuffer workspace(std::max<size_t>(need, 256));
  workspace.fill(0);
  void* ws = pointer(workspace.ptr());
  const auto refuses = [&](const std::function<void()>& call, const std::vector<std::string>& needles) {
    try {
      call();
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      for (const std::string& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
    }
  };
  refuses([&] { gemm.run(nullptr, b, c, ws, need); }, {"operand A", "null"});
  refuses([&] { gemm.run(a, static_cast<char*>(b) + 2, c, ws, need); }, {"operand B", "16-byte aligned", "align_b"});
  refuses([&] { gemm.run(a, b, nullptr, ws, need); }, {"operand C", "null"});
  if (need > 0) {
    refuses([&] { gemm.run(a, b, c, nullptr, need); }, {"workspace", "null"});
    refuses([&] { gemm.run(a, b, c, ws, need - 1); }, {"workspace", std::to_string(need)});
  }
  runtime::Stream stream;
  const std::vector<float> reference = runtime::cublasReference(buffers, stream.get());
  for (const Gemm* g : {&gemm, &copy}) {
    buffers.c.fill(0xff, stream.get());
    g->run(a, b, c, ws, need, stream.get());
    stream.synchronize();
    EXPECT_TRUE(checkC(buffers, reference).passed);
  }
}

// Gemms launched to overlap the kernel before them (GemmOptions::overlap_prior_kernel, the default) right behind
// a kernel that writes their A and B, and behind each other on one stream: each waits for the
// kernel before it, so every C matches cuBLAS on the inputs as written. A plain problem, one whose
// pieces hand partial sums over in the workspace, a decode problem, and three dot kernels (sums handed
// over at L2, one chunk storing its own, and one cut into blocks along N), and a problem of a few K
// tiles that runs in the sm_80 family (scheduler/kernel_family.h).
TEST(GemmApi, OverlappedLaunchesSeeTheKernelBefore) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "programmatic dependent launch (sm_90 kernels)")) GTEST_SKIP() << *why;
  GemmOptions overlap;
  overlap.overlap_prior_kernel = true;
  runtime::Stream stream;
  for (const scheduler::MatmulProblem& p : {makeProblem(2048, 2048, 2048, Layout::TN, DType::BF16, DType::BF16),
                                            makeProblem(512, 512, 8192, Layout::TN, DType::BF16, DType::BF16),
                                            makeProblem(16, 4096, 4096, Layout::NT, DType::BF16, DType::BF16),
                                            makeProblem(4, 4, 65536, Layout::TN, DType::BF16, DType::BF16),
                                            makeProblem(1, 4096, 4096, Layout::TN, DType::BF16, DType::BF16),
                                            makeProblem(2, 2, 1000, Layout::TN, DType::BF16, DType::BF16),
                                            makeProblem(256, 256, 64, Layout::TN, DType::BF16, DType::BF16)}) {
    const Gemm gemm(p, overlap);
    EXPECT_EQ(gemm.schedule().params.dot.has_value(), p.m <= 4) << gemm.source().kernel_name;
    EXPECT_EQ(gemm.schedule().params.arch == scheduler::Arch::Sm80, p.k == 64) << gemm.source().kernel_name;
    runtime::MatmulBuffers buffers(p, 5);
    runtime::DeviceBuffer workspace(std::max<size_t>(gemm.workspaceSize(), 256));
    workspace.fill(0, stream.get());
    for (uint64_t round = 0; round < 3; ++round) {
      // New inputs each round, written by kernels just before the GEMM reads them.
      runtime::fillRandomOnDevice(buffers.a, p.a_dtype, static_cast<size_t>(p.spanA()), 10 + round, -1.f, 1.f, stream.get());
      runtime::fillRandomOnDevice(buffers.b, p.b_dtype, static_cast<size_t>(p.spanB()), 20 + round, -1.f, 1.f, stream.get());
      gemm.run(pointer(buffers.a.ptr()), pointer(buffers.b.ptr()), pointer(buffers.c.ptr()), pointer(workspace.ptr()),
               workspace.bytes(), stream.get());
      // A second launch right behind it, on the same workspace: its pieces' flags and sums must not
      // mix with the first launch's.
      gemm.run(pointer(buffers.a.ptr()), pointer(buffers.b.ptr()), pointer(buffers.c.ptr()), pointer(workspace.ptr()),
               workspace.bytes(), stream.get());
      stream.synchronize();
      const runtime::ErrorStats e = checkC(buffers, runtime::cublasReference(buffers, stream.get()));
      EXPECT_TRUE(e.passed) << gemm.source().kernel_name << " round " << round << ": norm rel " << e.norm_rel;
    }
  }
}

}  // namespace
}  // namespace tilegrid::testing
