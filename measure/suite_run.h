#pragma once
// Running a benchmark suite (measure/suite.h) on the current GPU: our kernel, cuBLAS (its default
// heuristic, strided-batched for batches) and cuBLASLt (the fastest of its heuristic's top
// candidates), checked and timed in turns in one process, the method of CUTLASS's profiler. Every
// case's kernel is compiled first, on all cores (through the kernel cache), so that NVRTC's seconds
// a kernel do not add up over a suite of small problems. Then:
//  - the clocks warm up first (cuBLAS on a large GEMM for `clock_warmup_seconds`), and every case
//    runs each contender `warmup` times untimed;
//  - each case is timed for at least `turns` turns and at least `seconds` of wall time (at most
//    `max_turns`), every launch alone between CUDA events after an L2 flush;
//  - the median of each contender is reported;
//  - every contender's C is checked against cuBLAS's before timing (ours also for writes between
//    C's rows).
// Results are JSON (one object per case), rendered by renderSuiteResults.
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/l2_flush.h"
#include "measure/suite.h"

namespace tilegrid::runtime {

struct SuiteRunOptions {
  int warmup = 10;
  int turns = 200;
  double seconds = 1.0;
  int max_turns = 20000;
  double clock_warmup_seconds = 2.0;
  uint64_t seed = 2026;
  // The kernel family of ours (GemmOptions::arch): the device's own where unset.
  std::optional<scheduler::Arch> arch;
  // Also check and time, in the same turns, ours with the problem's shape compiled in
  // (GemmOptions::specialize_shape): what reading it at launch costs. Cases whose kernel already
  // compiles it in (sm_80 where the shape is not read at launch) skip it.
  bool versus_specialized = false;
  // How the L2 is evicted before each timed launch (measure/l2_flush.h).
  L2Flush flush = L2Flush::Write;
  // Called after each case with its result, for progress.
  std::function<void(const nlohmann::json&)> progress;
};

// Runs every case; a case that cannot run (say, too large for the device) records why and the run
// goes on. Returns {"device": ..., "date": ..., "method": ..., "cases": [...]}.
nlohmann::json runSuite(const std::vector<SuiteCase>& cases, const SuiteRunOptions& options);

// A table of `results` (runSuite's JSON), one row per case, then per category and overall the
// geometric mean and the minimum of ours over each baseline. `torch` (optional, the same names):
// {"cases": {"<name>": {"median_ms": ...}}} from bench/torch_baseline.py. `markdown` makes the table
// a Markdown one; `summary_only` leaves out the per-case rows. Where problems were also timed under
// other schedules than the scheduler's, a last line says how far its schedule is from the fastest.
std::string renderSuiteResults(const nlohmann::json& results, const nlohmann::json& torch, bool markdown,
                               bool summary_only = false);

// `results` as a tile dataset (docs/benchmarks.md, *Tile datasets*): CSV rows of m, n, k, batch,
// layout, config (the schedule's choices, or "default"), the kernel as launched, and the medians of
// ours and cuBLAS in microseconds. Cases that did not run (a configuration the device cannot hold)
// have no row.
std::string renderSuiteDataset(const nlohmann::json& results);

}  // namespace tilegrid::runtime
