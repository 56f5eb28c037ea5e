#pragma once
// Sweeping grid traversals for one problem: every method x factor list x grouped dimension asked
// for, each emitted, compiled (in parallel), checked against cuBLAS and event-timed next to it,
// then ranked fastest first. `tilegrid sweep` and the sweep benchmark are built on it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/matmul_run.h"
#include "tilegrid/scheduler/heuristics.h"

namespace tilegrid::runtime {

struct SweepRequest {
  scheduler::MatmulProblem problem;
  scheduler::DeviceSpec device;
  // Everything but the traversal (tiles, stages, arch, ...); its method, factors and group are ignored.
  scheduler::ScheduleOverrides base;
  std::vector<scheduler::GridMethod> methods{scheduler::GridMethod::None, scheduler::GridMethod::SplitMerge,
                                             scheduler::GridMethod::SwizzleMerge};
  std::vector<std::vector<int64_t>> factor_lists{{1}, {2}, {4}, {8}, {16}, {32}, {8, 2}};
  std::vector<scheduler::GridGroup> groups{scheduler::GridGroup::M, scheduler::GridGroup::N};
};

// The traversals a request names: `none` once per group (row- or column-major; it has no factor),
// each other method with every factor list and group it accepts (split-merge takes a single factor). The heuristic's own
// choice is always included, so its place in the ranking is known. `skipped` (optional) collects a
// line per combination left out and why.
std::vector<scheduler::GridTraversal> sweepCandidates(const SweepRequest& request,
                                                      std::vector<std::string>* skipped = nullptr);

// `overrides` with the traversal replaced by `traversal`.
scheduler::ScheduleOverrides withTraversal(scheduler::ScheduleOverrides overrides,
                                           const scheduler::GridTraversal& traversal);

struct SweepEntry {
  scheduler::GridTraversal traversal;
  bool heuristic = false;  // the L2 model's choice
  std::string kernel_name;
  int64_t tiles = 0, work_units = 0, ctas = 0;
  int64_t wasted_tiles = 0;  // tiles of work units past the grid (split-merge's overhang)
  int registers = -1;  // -1: ptxas did not say
  std::optional<ErrorStats> errors;
  std::optional<TimingStats> timing;
};

struct SweepReport {
  scheduler::MatmulProblem problem;
  scheduler::DeviceSpec device;
  scheduler::Arch arch = scheduler::Arch::Sm90;
  std::vector<SweepEntry> entries;  // fastest first when timed, else in candidate order
  std::optional<TimingStats> cublas;
  bool timed = false;
  std::vector<std::string> skipped;

  // 1-based place of the heuristic's traversal in the ranking.
  size_t heuristicRank() const;
  bool allPassed() const;
};

struct SweepOptions {
  bool run = true;  // false: plan, emit and compile only (no GPU needed)
  bool check = true;
  // Timed runs per candidate. Each round times cuBLAS and every candidate once, in turn, so clock
  // and power drift (large on an H100 near its power limit) fall on all of them alike.
  int iterations = 30;
  int warmup = 3;  // untimed runs of each before the first round
  uint64_t seed = 2026;
  // Called after each step: compiling every candidate, then timing every candidate.
  std::function<void(size_t done, size_t total, const std::string& step)> progress;
};

SweepReport sweepGrid(const SweepRequest& request, const SweepOptions& options);

}  // namespace tilegrid::runtime
