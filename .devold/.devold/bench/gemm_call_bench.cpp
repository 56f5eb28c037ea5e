// The host's cost of one GEMM call: how long Gemm::run and tilegrid::matmul take to return, the
// kernel queued (not run). Each call is timed alone with a steady clock (UseManualTime); every 32
// calls the stream is drained, untimed, so that the launch queue never fills and blocks a call.
// Counters: the median and 90th percentile of a call, in microseconds. The floor is the driver's own
// cuLaunchKernelEx of the same kernel with its arguments built beforehand (DriverLaunch).
//
// Cases per problem: Run (the same pointers every call), RunNewPointers (two sets of buffers in turn:
// tensor maps are encoded over whichever come), Matmul (the one-call form, its cache warm),
// DriverLaunch, and Cublas (cublasGemmEx's call on the same problem, for scale). Without a GPU it
// registers nothing and says why.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <vector>

#include "measure/cublas_baseline.h"
#include "measure/matmul_run.h"
#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/gemm.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"
#include "tilegrid/runtime/tensor_map.h"
#include "tilegrid/scheduler/schedule.h"

namespace {

namespace rt = tilegrid::runtime;
namespace sc = tilegrid::scheduler;

constexpr int kDrainEvery = 32;

void* pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// Times `call` alone each iteration; drains the stream every kDrainEvery calls outside the timing.
template <typename Call>
void timeCalls(benchmark::State& state, CUstream stream, Call call) {
  std::vector<double> us;
  us.reserve(static_cast<size_t>(state.max_iterations));
  int64_t i = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    call(i);
    const auto stop = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(stop - start).count();
    state.SetIterationTime(seconds);
    us.push_back(seconds * 1e6);
    if (++i % kDrainEvery == 0) TG_CU(cuStreamSynchronize, stream);
  }
  TG_CU(cuStreamSynchronize, stream);
  std::sort(us.begin(), us.end());
  state.counters["median_us"] = us[us.size() / 2];
  state.counters["p90_us"] = us[us.size() * 9 / 10];
}

struct Setup {
  sc::MatmulProblem problem;
  std::unique_ptr<tilegrid::Gemm> gemm;
  std::unique_ptr<rt::MatmulBuffers> buffers[2];
  std::unique_ptr<rt::DeviceBuffer> workspace;
  std::unique_ptr<rt::Stream> stream;

  explicit Setup(const sc::MatmulProblem& p) : problem(p) {
    gemm = std::make_unique<tilegrid::Gemm>(p);
    buffers[0] = std::make_unique<rt::MatmulBuffers>(p, 1);
    buffers[1] = std::make_unique<rt::MatmulBuffers>(p, 2);
    workspace = std::make_unique<rt::DeviceBuffer>(std::max<size_t>(gemm->workspaceSize(), 256));
    workspace->fill(0);
    stream = std::make_unique<rt::Stream>();
    rt::synchronizeDevice();
  }
  void run(int which) const {
    const rt::MatmulBuffers& b = *buffers[which];
    gemm->run(pointer(b.a.ptr()), pointer(b.b.ptr()), pointer(b.c.ptr()), pointer(workspace->ptr()),
              workspace->bytes(), stream->get());
  }
};

// The driver's launch of the Gemm's kernel with its arguments built once: what no wrapper can beat.
void driverLaunch(benchmark::State& state, const Setup& s) {
  const tilegrid::codegen::KernelSource& source = s.gemm->source();
  const rt::LoadedKernel kernel(*rt::KernelCache::global().get(source, rt::currentDeviceSpec().arch()));
  const tilegrid::codegen::LaunchConfig launch = kernel.residentLaunch(source.launch);
  const uint32_t cluster = launch.cluster[0] * launch.cluster[1] * launch.cluster[2];
  rt::KernelArgs args;
  const rt::MatmulBuffers& b = *s.buffers[0];
  for (const tilegrid::codegen::KernelArg& arg : source.args) {
    if (arg.kind == tilegrid::codegen::ArgKind::Problem) {
      args.add(tilegrid::codegen::problemArgs(s.gemm->schedule(), launch.grid[0] / cluster));
    } else if (arg.kind == tilegrid::codegen::ArgKind::TensorMap) {
      const CUdeviceptr base = arg.buffer == "A" ? b.a.ptr() : arg.buffer == "B" ? b.b.ptr() : b.c.ptr();
      args.add(arg.buffer.empty() || arg.padded ? CUtensorMap{} : rt::encodeTensorMap(*arg.tensor_map, base));
    } else {
      args.add(arg.buffer == "workspace" ? s.workspace->ptr() : arg.buffer == "C" ? b.c.ptr() : CUdeviceptr{0});
    }
  }
  if (!source.args.empty() && std::any_of(source.args.begin(), source.args.end(), [](const auto& a) { return a.padded; })) {
    state.SkipWithError("padded operands: the bare launch would read unpadded memory");
    return;
  }
  timeCalls(state, s.stream->get(), [&](int64_t) { kernel.launchResident(launch, args, s.stream->get()); });
}

void registerProblem(const sc::MatmulProblem& p) {
  auto setup = std::make_shared<Setup>(p);
  const std::string name = p.toString() + " " + setup->gemm->source().kernel_name;
  benchmark::RegisterBenchmark(("Run/" + name).c_str(), [setup](benchmark::State& state) {
    timeCalls(state, setup->stream->get(), [&](int64_t) { setup->run(0); });
  })->UseManualTime()->Iterations(2000);
  benchmark::RegisterBenchmark(("RunNewPointers/" + name).c_str(), [setup](benchmark::State& state) {
    timeCalls(state, setup->stream->get(), [&](int64_t i) { setup->run(static_cast<int>(i % 2)); });
  })->UseManualTime()->Iterations(2000);
  benchmark::RegisterBenchmark(("Matmul/" + name).c_str(), [setup](benchmark::State& state) {
    const rt::MatmulBuffers& b = *setup->buffers[0];
    tilegrid::matmul(setup->problem, pointer(b.a.ptr()), pointer(b.b.ptr()), pointer(b.c.ptr()), setup->stream->get());
    timeCalls(state, setup->stream->get(), [&](int64_t) {
      tilegrid::matmul(setup->problem, pointer(b.a.ptr()), pointer(b.b.ptr()), pointer(b.c.ptr()), setup->stream->get());
    });
  })->UseManualTime()->Iterations(2000);
  benchmark::RegisterBenchmark(("DriverLaunch/" + name).c_str(), [setup](benchmark::State& state) {
    driverLaunch(state, *setup);
  })->UseManualTime()->Iterations(2000);
  benchmark::RegisterBenchmark(("Cublas/" + name).c_str(), [setup](benchmark::State& state) {
    rt::CublasGemm cublas;
    const rt::MatmulBuffers& b = *setup->buffers[0];
    timeCalls(state, setup->stream->get(),
              [&](int64_t) { cublas.run(setup->problem, b.a.ptr(), b.b.ptr(), b.c.ptr(), setup->stream->get()); });
  })->UseManualTime()->Iterations(2000);
}

sc::MatmulProblem problem(int64_t m, int64_t n, int64_t k) {
  sc::MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  return p.validate();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  try {
    rt::currentDeviceSpec();
  } catch (const rt::NoDeviceError& e) {
    std::cout << "gemm call benchmarks skipped: " << e.what() << "\n";
    return 0;
  }
  // Stream-K with TMA maps for A, B and C; padded copies of A and B (two more launches a call); a
  // decode-like problem.
  for (const sc::MatmulProblem& p : {problem(4096, 4096, 4096), problem(1001, 515, 257), problem(64, 4096, 4096)}) {
    registerProblem(p);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
