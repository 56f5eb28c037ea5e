#pragma once
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "cli/plan_options.h"

namespace tilegrid::cli {

struct RunCommandOptions {
  PlanOptions plan;
  int iters = 30;
  bool check = true;
  std::string reference = "cublas";  // what the check compares with: cublas | cpu
  std::string baseline = "cublas";   // what is timed beside ours: cublas | none
  std::string format = "text";
  // Also run the same schedule with the shape compiled in, checked and timed in the same turns.
  bool versus_specialized = false;
  std::string flush = "write";  // how the L2 is evicted before each timed launch (measure/l2_flush.h)
};

// `tilegrid run`: schedule, emit, compile, launch on the GPU, verify against cuBLAS and time both.
// Without a GPU it does everything up to the launch and says why it stopped (status 0).
CLI::App* addRunCommand(CLI::App& app, RunCommandOptions& options);
// Returns the exit status: 0, or 1 when verification failed.
int runRunCommand(const RunCommandOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
