#pragma once
// The options that describe a GEMM and how to schedule it, shared by plan (and later emit,
// compile, run).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "tilegrid/scheduler/heuristics.h"
#include "tilegrid/scheduler/problem.h"
#include "tilegrid/runtime/tuning_store.h"

namespace tilegrid::cli {

struct PlanOptions {
  std::string m, n, k, batch = "1";
  // Leading dimensions and batch strides in elements; 0 is packed.
  std::string lda = "0", ldb = "0", ldc = "0", stride_a = "0", stride_b = "0", stride_c = "0";
  std::string dtype = "bf16";
  std::string b_dtype;    // empty: dtype
  std::string out_dtype;  // empty: the input dtype (bf16 for 8-bit inputs)
  std::string scale = "none";
  std::string layout = "TN";
  // A fused epilogue (ir/epilogue.h), and its operands' element types (empty: the output's).
  std::string epilogue, bias_dtype, c_in_dtype, residual_dtype, aux_dtype;
  std::string arch;  // empty: the device's arch, or sm_90 without a device
  std::string factor, method, group, cta_tile, warp_tile, stages, cluster, persistent, stream_k, swap_ab, pad_operands,
      mma_order, width_at_launch, fixed_choices, pingpong, dot;
  // Use the traversal `tilegrid sweep --apply` stored for this problem, unless one is given.
  bool tuned = true;
  bool specialize_shape = false;
  bool deterministic = false;
};

void addPlanOptions(CLI::App& cmd, PlanOptions& options);

struct PlanRequest {
  scheduler::MatmulProblem problem;
  scheduler::DeviceSpec device;
  scheduler::ScheduleOverrides overrides;
  // The stored traversal the overrides took, and the file it came from.
  std::optional<runtime::TunedTraversal> tuned;
  std::string tuned_from;
};

// "grid: tuned by tilegrid sweep --apply (...)", or nothing when no tuning applied.
std::string tunedNote(const PlanRequest& request);

// Parses and validates the options. The device is `device` when given (a real GPU), else the
// preset for --arch. Without --method, --factor and --group, a traversal stored by
// `tilegrid sweep --apply` for this problem, device and arch is used (unless --no-tuned). Throws UserError naming the option on bad input.
PlanRequest parsePlanOptions(const PlanOptions& options,
                             const std::optional<scheduler::DeviceSpec>& device = std::nullopt);

}  // namespace tilegrid::cli
