#include "measure/grid_sweep.h"

#include <algorithm>
#include <memory>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/swizzle_merge.h"
#include "measure/cublas_baseline.h"
#include "measure/l2_flush.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::runtime {

namespace {

using scheduler::GridMethod;
using scheduler::GridTraversal;

bool accepts(const GridTraversal& traversal, std::string* why) {
  try {
    traversal.validate();
    return true;
  } catch (const UserError& e) {
    *why = e.what();
    return false;
  }
}

GridTraversal heuristicTraversal(const SweepRequest& request) {
  scheduler::ScheduleOverrides base = request.base;
  base.method.reset();
  base.factors.reset();
  base.group.reset();
  return scheduler::chooseParams(request.problem, request.device, base).grid;
}

// A candidate compiled and bound to the shared buffers.
struct Prepared {
  scheduler::MatmulSchedule schedule;
  codegen::KernelSource source;
  std::shared_ptr<const CompiledKernel> compiled;
  std::unique_ptr<MatmulLaunch> launch;
};

}  // namespace

std::vector<GridTraversal> sweepCandidates(const SweepRequest& request, std::vector<std::string>* skipped) {
  TG_USER_CHECK(!request.methods.empty()) << "a sweep needs at least one grid method";
  // Every factor list must be valid on its own, even when only `none` is swept.
  for (const auto& factors : request.factor_lists) ir::validateSwizzleFactors(factors);
  std::vector<GridTraversal> candidates;
  auto add = [&](const GridTraversal& t) {
    if (std::find(candidates.begin(), candidates.end(), t) == candidates.end()) candidates.push_back(t);
  };
  for (GridMethod method : request.methods) {
    TG_USER_CHECK(!request.groups.empty()) << "a sweep over " << scheduler::toString(method)
                                           << " needs at least one grouped dimension (m, n)";
    if (method == GridMethod::None) {
      for (scheduler::GridGroup group : request.groups) add(GridTraversal{GridMethod::None, {1}, group});
      continue;
    }
    TG_USER_CHECK(!request.factor_lists.empty()) << "a sweep over " << scheduler::toString(method)
                                                 << " needs at least one factor";
    for (const auto& factors : request.factor_lists) {
      for (scheduler::GridGroup group : request.groups) {
        const GridTraversal t{method, factors, group};
        std::string why;
        if (accepts(t, &why)) {
          add(t);
        } else if (skipped != nullptr) {
          skipped->push_back(t.toString() + ": " + why);
        }
      }
    }
  }
  add(heuristicTraversal(request));
  return candidates;
}

size_t SweepReport::heuristicRank() const {
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].heuristic) return i + 1;
  }
  TG_INTERNAL_ERROR() << "the sweep lost the heuristic's traversal";
  return 0;
}

bool SweepReport::allPassed() const {
  return std::all_of(entries.begin(), entries.end(), [](const SweepEntry& e) { return !e.errors || e.errors->passed; });
}

scheduler::ScheduleOverrides withTraversal(scheduler::ScheduleOverrides overrides, const GridTraversal& traversal) {
  overrides.method = traversal.method;
  overrides.factors = traversal.factors;
  overrides.group = traversal.group;
  return overrides;
}

SweepReport sweepGrid(const SweepRequest& request, const SweepOptions& options) {
  TG_USER_CHECK(options.iterations >= 1 && options.warmup >= 0)
      << "a sweep needs >= 1 timed iteration and >= 0 warm-up runs, got " << options.iterations << " and "
      << options.warmup;
  SweepReport report;
  report.problem = request.problem;
  report.device = request.device;
  const GridTraversal heuristic = heuristicTraversal(request);
  const std::vector<GridTraversal> candidates = sweepCandidates(request, &report.skipped);

  std::vector<Prepared> prepared;
  prepared.reserve(candidates.size());
  for (const GridTraversal& t : candidates) {
    scheduler::MatmulSchedule s = scheduler::schedule(request.problem, request.device, withTraversal(request.base, t));
    codegen::KernelSource source = codegen::emit(s);
    prepared.push_back(Prepared{std::move(s), std::move(source), nullptr, nullptr});
  }
  report.arch = prepared.front().schedule.params.arch;
  // A device runs its own target (sm_80-family code compiles for sm_90a on a Hopper).
  std::vector<const codegen::KernelSource*> sources;
  for (const Prepared& p : prepared) sources.push_back(&p.source);
  const auto compiled = KernelCache::global().getAll(
      sources, options.run ? request.device.arch() : report.arch, {},
      [&](size_t done, size_t total, const std::string& kernel) {
        if (options.progress) options.progress(done, total, "compiling " + kernel);
      });
  for (size_t i = 0; i < prepared.size(); ++i) prepared[i].compiled = compiled[i];

  for (size_t i = 0; i < prepared.size(); ++i) {
    const Prepared& p = prepared[i];
    SweepEntry e;
    e.traversal = candidates[i];
    e.heuristic = candidates[i] == heuristic;
    e.kernel_name = p.source.kernel_name;
    e.tiles = p.schedule.tiles();
    e.work_units = p.schedule.workUnits();
    e.ctas = p.schedule.ctas();
    e.wasted_tiles = p.schedule.wastedTiles();
    if (const KernelStats* stats = p.compiled->findStats()) e.registers = stats->registers;
    report.entries.push_back(std::move(e));
  }
  if (!options.run) return report;

  const scheduler::MatmulProblem& problem = request.problem;
  MatmulBuffers buffers(problem, options.seed);
  Stream stream;
  CublasGemm cublas;
  const std::vector<float> reference = options.check ? cublasReference(buffers, stream.get()) : std::vector<float>{};
  for (size_t i = 0; i < prepared.size(); ++i) {
    Prepared& p = prepared[i];
    // Timed alone behind an L2 flush, like cuBLAS (runMatmul says why).
    p.launch = std::make_unique<MatmulLaunch>(Gemm(p.schedule, false), buffers);
    if (options.check) report.entries[i].errors = checkLaunch(*p.launch, buffers, reference, stream.get());
  }

  L2Flusher flusher(request.device.l2_bytes);
  const auto run_cublas = [&] { cublas.run(problem, buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream.get()); };
  std::vector<std::function<void()>> launches = {run_cublas};
  for (Prepared& p : prepared) launches.emplace_back([&p, &stream] { (*p.launch)(stream.get()); });
  std::vector<std::vector<float>> ms = timeInTurns(launches, options.warmup, TurnBudget{options.iterations}, flusher, stream.get(), [&](int turn) {
    if (options.progress) options.progress(static_cast<size_t>(turn) + 1, static_cast<size_t>(options.iterations), "timing");
  });
  const double flops = problem.flops();
  report.cublas = summarizeTimes(std::move(ms[0]), flops);
  for (size_t i = 0; i < prepared.size(); ++i) report.entries[i].timing = summarizeTimes(std::move(ms[i + 1]), flops);
  std::stable_sort(report.entries.begin(), report.entries.end(), [](const SweepEntry& a, const SweepEntry& b) {
    return a.timing->median_ms < b.timing->median_ms;
  });
  report.timed = true;
  return report;
}

}  // namespace tilegrid::runtime
