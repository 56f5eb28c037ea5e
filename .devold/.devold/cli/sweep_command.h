#pragma once
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/plan_options.h"

namespace tilegrid::cli {

struct SweepCommandOptions {
  PlanOptions plan;
  std::vector<std::string> methods{"none", "split-merge", "swizzle-merge"};
  std::vector<std::string> factors{"1", "2", "4", "8", "16", "32", "8,2"};
  std::vector<std::string> groups{"m", "n"};
  int iters = 30;
  bool check = true;
  std::string out_file;
  std::string plot_file;
  bool apply = false;
};

// `tilegrid sweep`: times every grid traversal asked for on the GPU next to cuBLAS and prints them
// ranked; --apply stores the fastest for `tilegrid run`. Without a GPU it compiles every candidate
// and says why it could not time them (status 0).
CLI::App* addSweepCommand(CLI::App& app, SweepCommandOptions& options);
// 0, or 1 when a candidate failed its check against cuBLAS.
int runSweepCommand(const SweepCommandOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
