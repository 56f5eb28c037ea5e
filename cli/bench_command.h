#pragma once
// `tilegrid bench`: a benchmark suite (bench/suites/*.json) on the GPU against cuBLAS and cuBLASLt,
// or the table of a saved run (--from), with torch.compile's times merged in (--torch).
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace tilegrid::cli {

struct BenchOptions {
  std::string suite;      // the case list
  std::string filter;     // a regular expression over "name category": only matching cases run
  std::string json;       // where the run's JSON goes
  std::vector<std::string> from;   // saved runs' JSON to render (as one) instead of running
  std::vector<std::string> torch;  // bench/torch_baseline.py's JSON files
  std::string format = "text";  // text | markdown
  int turns = 200;
  double seconds = 1.0;
  bool list = false;      // print the cases and stop
  bool summary = false;   // only the per-category summary
  bool versus_specialized = false;  // also time ours with the shape compiled in
  std::string arch;       // the kernel family ours runs (empty: the device's own)
  std::string flush = "write";  // how the L2 is evicted before each timed launch (measure/l2_flush.h)
};

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options);
int runBenchCommand(const BenchOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
