#pragma once
// The options that describe a GEMM and how to schedule it, shared by plan (and later emit,
// compile, run).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "scheduler/heuristics.h"
#include "scheduler/problem.h"

namespace tilegrid::cli {

struct PlanOptions {
  std::string m, n, k, batch = "1";
  std::string dtype = "bf16";
  std::string out_dtype = "bf16";
  std::string layout = "TN";
  std::string arch;  // empty: the device's arch, or sm_90 without a device
  std::string factor, method, group, cta_tile, warp_tile, stages, cluster;
};

void addPlanOptions(CLI::App& cmd, PlanOptions& options);

struct PlanRequest {
  scheduler::MatmulProblem problem;
  scheduler::DeviceSpec device;
  scheduler::ScheduleOverrides overrides;
};

// Parses and validates the options. The device is `device` when given (a real GPU), else the
// preset for --arch. Throws UserError naming the option on bad input.
PlanRequest parsePlanOptions(const PlanOptions& options,
                             const std::optional<scheduler::DeviceSpec>& device = std::nullopt);

}  // namespace tilegrid::cli
