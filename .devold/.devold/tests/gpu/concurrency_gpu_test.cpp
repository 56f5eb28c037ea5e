// One kernel launched from 8 host threads at once, each on its own stream with its own buffers, and
// every result checked against cuBLAS. The threads also ask the kernel cache for the kernel together.
#include <gtest/gtest.h>

#include <thread>

#include "tilegrid/codegen/emit.h"
#include "measure/cublas_baseline.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"
#include "measure/matmul_run.h"
#include "support/gemm_cases.h"
#include "support/gpu_device.h"

namespace tilegrid::testing {
namespace {

TEST(Concurrency, EightThreadsLaunchTheSameKernelOnTheirOwnStreams) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  // A non-divisible grid with K tail, so edge predicates run too.
  const scheduler::MatmulProblem problem =
      makeProblem(1000, 900, 700, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16);
  const auto schedule = scheduler::schedule(problem, device);
  const codegen::KernelSource source = codegen::emit(schedule);
  const auto compiled = runtime::KernelCache::global().get(source, device.arch());

  constexpr int kThreads = 8, kLaunches = 5;
  std::vector<runtime::ErrorStats> errors(kThreads);
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        // Same key from every thread: one compile, one shared result.
        if (runtime::KernelCache::global().get(source, device.arch()).get() != compiled.get()) {
          failures[static_cast<size_t>(t)] = "the cache compiled the kernel again";
        }
        runtime::MatmulBuffers buffers(problem, 1000 + static_cast<uint64_t>(t));
        runtime::MatmulLaunch launch(Gemm(schedule), buffers);
        runtime::Stream stream;
        for (int i = 0; i < kLaunches; ++i) launch(stream.get());
        runtime::DeviceBuffer reference(buffers.c.bytes());
        runtime::CublasGemm cublas;
        cublas.run(problem, buffers.a.ptr(), buffers.b.ptr(), reference.ptr(), stream.get());
        stream.synchronize();
        errors[static_cast<size_t>(t)] =
            runtime::compareOutputs(runtime::decode(buffers.c.toHost<uint8_t>(), problem.out_dtype),
                                    runtime::decode(reference.toHost<uint8_t>(), problem.out_dtype), problem.out_dtype);
      } catch (const std::exception& e) {
        failures[static_cast<size_t>(t)] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[static_cast<size_t>(t)], "") << "thread " << t;
    EXPECT_TRUE(errors[static_cast<size_t>(t)].passed)
        << "thread " << t << ": norm rel " << errors[static_cast<size_t>(t)].norm_rel;
  }
}

}  // namespace
}  // namespace tilegrid::testing
