#pragma once
// `tilegrid kernels`: the distinct compiled kernels a range of problem shapes needs.
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "cli/plan_options.h"

namespace tilegrid::cli {

struct KernelsOptions {
  // --m, --n and --k take a value or a range FIRST:LAST (inclusive) or FIRST:LAST:STEP.
  PlanOptions plan;
  bool compile = false;  // NVRTC-compile each distinct kernel, cold, and report the time
  std::string format = "text";
};

CLI::App* addKernelsCommand(CLI::App& app, KernelsOptions& options);
void runKernelsCommand(const KernelsOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
