// CPU cost of getting a kernel: scheduling and emitting it, compiling it with NVRTC from cold, and
// finding it in the kernel cache in memory and on disk.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/scheduler/schedule.h"

namespace {

namespace sc = tilegrid::scheduler;
namespace rt = tilegrid::runtime;

sc::MatmulSchedule scheduleFor(sc::Arch arch, int64_t size) {
  sc::MatmulProblem problem;
  problem.m = problem.n = problem.k = size;
  problem.validate();
  sc::ScheduleOverrides overrides;
  overrides.arch = arch;
  return sc::schedule(problem, sc::DeviceSpec::preset("sm_90"), overrides);
}

// arg 0: 80 or 90, the kernel family.
sc::Arch archOf(const benchmark::State& state) { return state.range(0) == 80 ? sc::Arch::Sm80 : sc::Arch::Sm90; }

void BM_ScheduleAndEmit(benchmark::State& state) {
  for (auto _ : state) {
    const auto source = tilegrid::codegen::emit(scheduleFor(archOf(state), 4000));
    benchmark::DoNotOptimize(source.cuda.data());
  }
}
BENCHMARK(BM_ScheduleAndEmit)->Arg(80)->Arg(90)->Unit(benchmark::kMicrosecond);

void BM_NvrtcColdCompile(benchmark::State& state) {
  const auto source = tilegrid::codegen::emit(scheduleFor(archOf(state), 4000));
  for (auto _ : state) {
    rt::KernelCache cache;  // empty, no disk: every get compiles
    benchmark::DoNotOptimize(cache.get(source, archOf(state)).get());
  }
}
BENCHMARK(BM_NvrtcColdCompile)->Arg(80)->Arg(90)->Iterations(3)->Unit(benchmark::kMillisecond);

void BM_CacheHitInMemory(benchmark::State& state) {
  const auto source = tilegrid::codegen::emit(scheduleFor(archOf(state), 4000));
  rt::KernelCache cache;
  cache.get(source, archOf(state));
  for (auto _ : state) benchmark::DoNotOptimize(cache.get(source, archOf(state)).get());
}
BENCHMARK(BM_CacheHitInMemory)->Arg(80)->Arg(90)->Unit(benchmark::kMicrosecond);

// A fresh process's first request: a new cache over a folder that holds the entry.
void BM_CacheHitOnDisk(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / ("tilegrid_bench_cache_" + std::to_string(::getpid()));
  const auto source = tilegrid::codegen::emit(scheduleFor(archOf(state), 4000));
  rt::KernelCache(dir).get(source, archOf(state));
  for (auto _ : state) {
    rt::KernelCache cache(dir);
    benchmark::DoNotOptimize(cache.get(source, archOf(state)).get());
    if (cache.stats().disk_hits != 1) state.SkipWithError("the entry was not read from disk");
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_CacheHitOnDisk)->Arg(80)->Arg(90)->Unit(benchmark::kMicrosecond);

// What an application calling N = K = 4096 GEMMs with every M from 1 to 8192 (the token count, say)
// pays in compiles: the distinct kernels the default sm_90 schedules of that range use, each compiled
// cold, one after another. arg 0: the step between Ms (1 schedules all 8192). Scheduling is not
// timed; counters give the kernels and the shapes.
void BM_NvrtcColdCompileMRange(benchmark::State& state) {
  std::map<std::string, tilegrid::codegen::KernelSource> kernels;
  int64_t shapes = 0;
  for (int64_t m = 1; m <= 8192; m += state.range(0), ++shapes) {
    sc::MatmulProblem problem;
    problem.m = m;
    problem.n = problem.k = 4096;
    problem.validate();
    const auto source = tilegrid::codegen::emit(sc::schedule(problem, sc::DeviceSpec::preset("sm_90")));
    kernels.emplace(source.cuda, source);
  }
  for (auto _ : state) {
    rt::KernelCache cache;  // empty, no disk: every get compiles
    for (const auto& [text, source] : kernels) benchmark::DoNotOptimize(cache.get(source, sc::Arch::Sm90).get());
  }
  state.counters["kernels"] = static_cast<double>(kernels.size());
  state.counters["shapes"] = static_cast<double>(shapes);
}
BENCHMARK(BM_NvrtcColdCompileMRange)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
