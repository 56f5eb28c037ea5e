// The GPU grid-traversal sweep: every method x factor (list) x grouped dimension on divisible and
// non-divisible, square and skinny problems, with cuBLAS in the same binary as the baseline.
//
// Each iteration flushes L2, then event-times one launch (UseManualTime). Counters: TFLOP/s at the
// median iteration (TFLOP/s_mean: the rate over all iterations), the ratio to cuBLAS's median, CTAs launched and tiles wasted. Without a GPU it
// registers nothing and says why. TILEGRID_BENCH_CHECK=1 checks every kernel against cuBLAS first.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <regex>

#include "tilegrid/codegen/emit.h"
#include "measure/cublas_baseline.h"
#include "measure/l2_flush.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "measure/grid_sweep.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/scheduler/schedule.h"

namespace {

namespace rt = tilegrid::runtime;
namespace sc = tilegrid::scheduler;

struct Shape {
  int64_t m, n, k;
  std::string name() const { return fmt::format("{}x{}x{}", m, n, k); }
};

struct Candidate {
  sc::MatmulSchedule schedule;
  tilegrid::codegen::KernelSource source;
  std::shared_ptr<const rt::CompiledKernel> compiled;
  bool heuristic = false;
};

// The buffers of the shape being measured; benchmarks run in registration order, one shape at a time.
struct ShapeBuffers {
  std::string shape;
  std::unique_ptr<rt::MatmulBuffers> buffers;
  std::unique_ptr<rt::L2Flusher> flusher;
  std::unique_ptr<rt::Stream> stream;
  double cublas_median_ms = 0;
};
ShapeBuffers& current(const sc::MatmulProblem& problem) {
  static ShapeBuffers state;
  if (state.shape != problem.toString()) {
    state.buffers.reset();
    state.buffers = std::make_unique<rt::MatmulBuffers>(problem, 2026);
    state.flusher = std::make_unique<rt::L2Flusher>(rt::currentDeviceSpec().l2_bytes);
    state.stream = std::make_unique<rt::Stream>();
    state.shape = problem.toString();
    state.cublas_median_ms = 0;
  }
  return state;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <typename Launch>
double timeIterations(benchmark::State& state, ShapeBuffers& s, Launch launch) {
  for (int i = 0; i < 3; ++i) launch();
  rt::EventTimer timer;
  std::vector<double> ms;
  for (auto _ : state) {
    s.flusher->flush(s.stream->get());
    timer.start(s.stream->get());
    launch();
    timer.stop(s.stream->get());
    ms.push_back(timer.elapsedMs());
    state.SetIterationTime(ms.back() * 1e-3);
  }
  return median(ms);
}

void setRate(benchmark::State& state, const sc::MatmulProblem& problem, double median_ms) {
  state.counters["TFLOP/s"] = problem.flops() / (median_ms * 1e-3) / 1e12;
  // The same as a rate over the summed manual time: the mean, which outliers pull down.
  state.counters["TFLOP/s_mean"] = benchmark::Counter(problem.flops() * static_cast<double>(state.iterations()) / 1e12,
                                                      benchmark::Counter::kIsRate);
  state.counters["median_ms"] = median_ms;
}

void cublasBenchmark(benchmark::State& state, sc::MatmulProblem problem) {
  ShapeBuffers& s = current(problem);
  rt::CublasGemm cublas;
  auto& b = *s.buffers;
  s.cublas_median_ms =
      timeIterations(state, s, [&] { cublas.run(problem, b.a.ptr(), b.b.ptr(), b.c.ptr(), s.stream->get()); });
  setRate(state, problem, s.cublas_median_ms);
}

void sweepBenchmark(benchmark::State& state, const Candidate* c) {
  const sc::MatmulProblem& problem = c->schedule.problem;
  ShapeBuffers& s = current(problem);
  rt::MatmulLaunch launch(tilegrid::Gemm(c->schedule, false), *s.buffers);  // timed alone, like cuBLAS
  if (const char* check = std::getenv("TILEGRID_BENCH_CHECK"); check != nullptr && std::string(check) == "1") {
    const auto errors =
        rt::checkLaunch(launch, *s.buffers, rt::cublasReference(*s.buffers, s.stream->get()), s.stream->get());
    if (!errors.passed) {
      state.SkipWithError(fmt::format("wrong result: norm rel error {:.2e}", errors.norm_rel).c_str());
      return;
    }
  }
  const double ms = timeIterations(state, s, [&] { launch(s.stream->get()); });
  setRate(state, problem, ms);
  if (s.cublas_median_ms > 0) state.counters["vs_cuBLAS"] = s.cublas_median_ms / ms;
  state.counters["CTAs"] = static_cast<double>(c->schedule.ctas());
  state.counters["wasted_tiles"] = static_cast<double>(c->schedule.wastedTiles());
  state.counters["heuristic"] = c->heuristic ? 1 : 0;
  state.SetLabel(c->source.kernel_name);
}

}  // namespace

// Google Benchmark's --benchmark_filter, read before Initialize consumes it, so that only the
// kernels a run selects are compiled. Same rules: a regex searched in the name, '-' negates.
std::function<bool(const std::string&)> selection(int argc, char** argv) {
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--benchmark_filter=", 0) == 0) filter = arg.substr(19);
  }
  if (filter.empty() || filter == "all") return [](const std::string&) { return true; };
  const bool negate = filter[0] == '-';
  const std::regex pattern(negate ? filter.substr(1) : filter);
  return [=](const std::string& name) { return std::regex_search(name, pattern) != negate; };
}

int main(int argc, char** argv) {
  const auto selected = selection(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  sc::DeviceSpec device;
  try {
    device = rt::currentDeviceSpec();
    for (const auto& [key, value] : rt::describeDevice()) benchmark::AddCustomContext(key, value);
  } catch (const rt::NoDeviceError& e) {
    std::cout << "grid sweep benchmarks skipped: " << e.what() << "\n";
    return 0;
  }
  const std::vector<Shape> shapes{{8192, 8192, 8192}, {4000, 4000, 4000}, {6144, 6144, 2048},
                                  {16384, 1024, 8192}, {1000, 8192, 8192}};
  static std::vector<std::unique_ptr<Candidate>> candidates;
  std::vector<const tilegrid::codegen::KernelSource*> sources;
  for (const Shape& shape : shapes) {
    rt::SweepRequest request;
    request.problem.m = shape.m;
    request.problem.n = shape.n;
    request.problem.k = shape.k;
    request.problem.validate();
    request.device = device;
    const sc::GridTraversal heuristic = sc::chooseParams(request.problem, device).grid;
    sc::MatmulProblem problem = request.problem;
    benchmark::RegisterBenchmark(fmt::format("cuBLAS/{}", shape.name()).c_str(), cublasBenchmark, problem)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    for (const sc::GridTraversal& t : rt::sweepCandidates(request)) {
      sc::MatmulSchedule schedule = sc::schedule(request.problem, device, rt::withTraversal({}, t));
      auto source = tilegrid::codegen::emit(schedule);
      auto c = std::make_unique<Candidate>(Candidate{std::move(schedule), std::move(source), nullptr, t == heuristic});
      const std::string name = fmt::format("sweep/{}/{}/{}/{}", shape.name(), sc::toString(t.method),
                                           fmt::join(t.factors, ","), sc::toString(t.group));
      if (!selected(name)) continue;
      sources.push_back(&c->source);
      benchmark::RegisterBenchmark(name.c_str(), sweepBenchmark, c.get())
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
      candidates.push_back(std::move(c));
    }
  }
  std::cerr << "compiling " << sources.size() << " kernels...\n";
  const auto compiled = rt::KernelCache::global().getAll(sources, device.arch());
  for (size_t i = 0; i < candidates.size(); ++i) candidates[i]->compiled = compiled[i];
  std::cerr << "done\n";
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
