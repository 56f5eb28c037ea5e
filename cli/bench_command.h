#pragma once
// `tilegrid bench`: a benchmark suite (bench/suites/*.json) on the GPU against cuBLAS and cuBLASLt,
// or the table of a saved run (--from), with torch.compile's times merged in (--torch).
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace tilegrid::cli {

struct BenchOptions {
  std::string suite;      // the case list
  std::string filter;     // a regular expression over "name category": only matching cases run
  std::string json;       // where the run's JSON goes
  std::string from;       // a saved run's JSON to render instead of running
  std::string torch;      // bench/torch_baseline.py's JSON
  std::string format = "text";  // text | markdown
  int turns = 200;
  double seconds = 1.0;
  bool list = false;      // print the cases and stop
};

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options);
int runBenchCommand(const BenchOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
