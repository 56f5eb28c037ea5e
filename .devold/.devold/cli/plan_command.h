#pragma once
#include <CLI/CLI.hpp>
#include <iosfwd>

#include "cli/plan_options.h"

namespace tilegrid::cli {

struct PlanCommandOptions {
  PlanOptions plan;
  std::string format = "text";
};

// `tilegrid plan`: the schedule for a problem, for people (text) or tools (json).
CLI::App* addPlanCommand(CLI::App& app, PlanCommandOptions& options);
void runPlanCommand(const PlanCommandOptions& options, std::ostream& out);

}  // namespace tilegrid::cli
