#pragma once
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "cli/plan_options.h"

namespace tilegrid::cli {

struct EmitOptions {
  PlanOptions plan;
  std::string output;  // -o: a file instead of stdout
};

struct CompileCommandOptions {
  PlanOptions plan;
  bool line_info = false;
  std::string format = "text";
};

// `tilegrid emit`: the CUDA source of the scheduled kernel.
CLI::App* addEmitCommand(CLI::App& app, EmitOptions& options);
void runEmitCommand(const EmitOptions& options, std::ostream& out);

// `tilegrid compile`: NVRTC-compiles it (through the kernel cache) and prints ptxas statistics.
CLI::App* addCompileCommand(CLI::App& app, CompileCommandOptions& options);
void runCompileCommand(const CompileCommandOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
