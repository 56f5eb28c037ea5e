// CPU cost of getting a kernel: scheduling and emitting it, compiling it with NVRTC from cold, and
// finding it in the kernel cache in memory and on disk.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "codegen/emit.h"
#include "runtime/kernel_cache.h"
#include "scheduler/schedule.h"

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

}  // namespace
