#include "cli/run_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "cli/parse.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "measure/matmul_run.h"

namespace tilegrid::cli {

CLI::App* addRunCommand(CLI::App& app, RunCommandOptions& options) {
  CLI::App* cmd = app.add_subcommand("run", "Run the scheduled GEMM on the GPU, check it against cuBLAS, time both");
  addPlanOptions(*cmd, options.plan);
  cmd->add_option("--iters", options.iters, "Timed iterations (median reported; 0 skips timing)")->capture_default_str();
  cmd->add_flag("--check,!--no-check", options.check, "Verify the output (default on)");
  cmd->add_option("--reference", options.reference,
                  "What --check compares with: cublas, or cpu (fp64 on the host: exact, slow for large problems)")
      ->capture_default_str();
  cmd->add_option("--baseline", options.baseline,
                  "What is timed beside ours: cublas, or none (only our kernel runs: e.g. under compute-sanitizer "
                  "racecheck, which cuBLAS's kernels do not survive, with --reference cpu)")
      ->capture_default_str();
  cmd->add_option("--format", options.format, "text | json")->capture_default_str();
  cmd->add_option("--flush", options.flush,
                  "write | read: how the L2 is evicted before each timed launch (as tilegrid bench --flush)")
      ->capture_default_str();
  cmd->add_flag("--versus-specialized", options.versus_specialized,
                "Also run the same schedule with the problem's sizes compiled in (--specialize-shape), checked and "
                "timed in the same turns: the A/B of reading the shape at launch");
  return cmd;
}

int runRunCommand(const RunCommandOptions& options, std::ostream& out) {
  checkChoice("--format", options.format, {"text", "json"});
  checkChoice("--reference", options.reference, {"cublas", "cpu"});
  checkChoice("--baseline", options.baseline, {"cublas", "none"});
  checkChoice("--flush", options.flush, {"write", "read"});
  TG_USER_CHECK(options.iters >= 0 && options.iters <= 100000) << "--iters: expected 0 to 100000, got " << options.iters;
  std::string no_device;
  const std::optional<scheduler::DeviceSpec> device = runtime::findDeviceSpec(no_device);
  PlanOptions plan = options.plan;
  const PlanRequest request = parsePlanOptions(plan, device);
  const scheduler::MatmulSchedule schedule = scheduler::schedule(request.problem, request.device, request.overrides);
  const codegen::KernelSource source = codegen::emit(schedule);
  // Compile for the device's own target when there is one (see runMatmul).
  const auto compiled = runtime::KernelCache::global().get(source, device ? device->arch() : schedule.params.arch);
  // Under profilers ptxas may log nothing; the run goes on without the statistics.
  const runtime::KernelStats* stats = compiled->findStats();
  const nlohmann::json registers = stats ? nlohmann::json(stats->registers) : nlohmann::json(nullptr);
  const nlohmann::json spills =
      stats ? nlohmann::json(stats->spill_stores + stats->spill_loads) : nlohmann::json(nullptr);

  nlohmann::json j{{"kernel", source.kernel_name},
                   {"launch", codegen::launchName(schedule)},
                   {"problem", schedule.problem.toString()},
                   {"device", schedule.device.toString()},
                   {"params", schedule.params.toString()},
                   {"registers", registers},
                   {"spills", spills}};
  if (request.tuned) j["tuned"] = tunedNote(request);
  if (!device) {
    if (options.format == "json") {
      j["ran"] = false;
      j["reason"] = no_device;
      out << j.dump(2) << "\n";
    } else {
      out << fmt::format("kernel   {}\nproblem  {}\nparams   {}\ncompiled {} registers, {} bytes spilled\n",
                         source.kernel_name, schedule.problem.toString(), schedule.params.toString(), registers.dump(),
                         spills.dump());
      out << "not run: " << no_device << "\n";
    }
    return 0;
  }
  runtime::RunOptions run;
  run.check = options.check;
  run.iterations = options.iters;
  run.flush = runtime::parseL2Flush(options.flush);
  run.reference = options.reference == "cpu" ? runtime::Reference::CpuFp64 : runtime::Reference::Cublas;
  run.time_cublas = options.baseline == "cublas";
  std::optional<scheduler::MatmulSchedule> specialized;
  std::optional<codegen::KernelSource> specialized_source;
  if (options.versus_specialized) {
    TG_USER_CHECK(schedule.params.shapeAtLaunch())
        << "--versus-specialized compares a kernel that reads its shape at launch with one that compiles it in; "
           "this schedule already compiles it in (sm_80, or --specialize-shape)";
    scheduler::MatmulParams params = schedule.params;
    params.specialize_shape = true;
    specialized = scheduler::scheduleWith(schedule.problem, schedule.device, params);
    specialized_source = codegen::emit(*specialized);
    run.alternatives.push_back({&*specialized, &*specialized_source});
  }
  const char* reference_name = options.reference == "cpu" ? "fp64 CPU" : "cuBLAS";
  const runtime::RunResult result = runtime::runMatmul(schedule, source, run);
  const bool failed = result.errors && !result.errors->passed;
  j["ran"] = true;
  if (result.errors) {
    const auto& e = *result.errors;
    j["check"] = {{"reference", reference_name}, {"max_abs", e.max_abs},     {"max_rel", e.max_rel},
                  {"norm_rel", e.norm_rel},       {"tolerance", e.tolerance}, {"non_finite", e.non_finite},
                  {"gap_writes", e.gap_writes},
                  {"passed", e.passed}};
    if (e.aux_norm_rel >= 0) j["check"]["aux_norm_rel"] = e.aux_norm_rel;
  }
  if (result.ours) {
    j["ours"] = {{"median_ms", result.ours->median_ms}, {"tflops", result.ours->tflops}};
  }
  if (result.ours && result.cublas) {
    j["cublas"] = {{"median_ms", result.cublas->median_ms}, {"tflops", result.cublas->tflops}};
    j["ratio"] = result.ours->tflops / result.cublas->tflops;
  }
  // A fused epilogue's baselines: the unfused pair and cuBLASLt's own fused epilogue.
  if (result.unfused_pair && result.ours) {
    j["unfused_pair"] = {{"median_ms", result.unfused_pair->median_ms},
                         {"ours_over_it", result.unfused_pair->median_ms / result.ours->median_ms}};
  }
  if (result.cublaslt_epilogue) {
    nlohmann::json lt{{"epilogue", *result.cublaslt_epilogue}};
    if (result.cublaslt_fused && result.ours) {
      lt["median_ms"] = result.cublaslt_fused->median_ms;
      lt["ours_over_it"] = result.cublaslt_fused->median_ms / result.ours->median_ms;
    }
    if (result.cublaslt_errors) {
      lt["norm_rel"] = result.cublaslt_errors->norm_rel;
      if (result.cublaslt_errors->aux_norm_rel >= 0) lt["aux_norm_rel"] = result.cublaslt_errors->aux_norm_rel;
    }
    if (result.cublaslt_refused) lt["refused"] = *result.cublaslt_refused;
    j["cublaslt_fused"] = lt;
  }
  bool alternative_failed = false;
  for (const runtime::AlternativeResult& alt : result.alternatives) {
    nlohmann::json a{{"kernel", alt.kernel_name}};
    if (alt.errors) {
      a["check_passed"] = alt.errors->passed;
      a["norm_rel"] = alt.errors->norm_rel;
      alternative_failed = alternative_failed || !alt.errors->passed;
    }
    if (alt.time) a["tflops"] = alt.time->tflops, a["median_ms"] = alt.time->median_ms;
    if (alt.time && result.ours) a["ours_over_it"] = result.ours->tflops / alt.time->tflops;
    j["specialized"] = a;
  }
  const bool any_failed = failed || alternative_failed;
  if (options.format == "json") {
    out << j.dump(2) << "\n";
    return any_failed ? 1 : 0;
  }
  out << fmt::format("kernel   {}\nproblem  {}\ndevice   {}\nparams   {}\n", source.kernel_name,
                     schedule.problem.toString(), schedule.device.toString(), schedule.params.toString());
  if (request.tuned) out << "tuned    " << tunedNote(request) << "\n";
  if (result.errors) {
    const auto& e = *result.errors;
    out << fmt::format("check    vs {}: max rel {:.2e}, norm rel {:.2e}{} (tolerance {:.0e}), {} non-finite{}: {}\n",
                       reference_name, e.max_rel, e.norm_rel,
                       e.aux_norm_rel >= 0 ? fmt::format(", aux norm rel {:.2e}", e.aux_norm_rel) : "", e.tolerance,
                       e.non_finite,
                       e.gap_writes ? fmt::format(", {} written between C's rows (the first at element {})",
                                                  e.gap_writes, e.first_gap_write)
                                    : "",
                       e.passed ? "PASS" : "FAIL");
  }
  if (result.ours && !result.cublas) {
    out << fmt::format("time     ours {:.3f} ms = {:.1f} TFLOP/s (median of {}; no baseline timed)\n",
                       result.ours->median_ms, result.ours->tflops, options.iters);
  } else if (result.ours) {
    out << fmt::format("time     ours {:.3f} ms = {:.1f} TFLOP/s, cuBLAS {:.3f} ms = {:.1f} TFLOP/s, ratio {:.2f} "
                       "(median of {})\n",
                       result.ours->median_ms, result.ours->tflops, result.cublas->median_ms, result.cublas->tflops,
                       result.ours->tflops / result.cublas->tflops, options.iters);
  }
  if (result.unfused_pair && result.ours) {
    out << fmt::format("unfused  cuBLAS's product, then the epilogue as a kernel of its own: {:.3f} ms; ours {:.3f}x faster\n",
                       result.unfused_pair->median_ms, result.unfused_pair->median_ms / result.ours->median_ms);
  }
  if (result.cublaslt_epilogue) {
    out << fmt::format("cuBLASLt fused epilogue {}", *result.cublaslt_epilogue);
    if (result.cublaslt_errors) out << fmt::format(" (norm rel {:.2e})", result.cublaslt_errors->norm_rel);
    if (result.cublaslt_fused && result.ours) {
      out << fmt::format(": {:.3f} ms; ours {:.3f}x faster", result.cublaslt_fused->median_ms,
                         result.cublaslt_fused->median_ms / result.ours->median_ms);
    }
    if (result.cublaslt_refused) out << ": not run, " << *result.cublaslt_refused;
    out << "\n";
  } else if (!schedule.problem.epilogue.isIdentity() && result.ours) {
    out << "cuBLASLt has no fused epilogue computing this one\n";
  }
  for (const runtime::AlternativeResult& alt : result.alternatives) {
    out << fmt::format("shape compiled in: {}", alt.kernel_name);
    if (alt.errors) out << fmt::format(", check {}", alt.errors->passed ? "PASS" : "FAIL");
    if (alt.time && result.ours) {
      out << fmt::format(", {:.3f} ms = {:.1f} TFLOP/s; reading the shape at launch runs at {:.3f}x of it",
                         alt.time->median_ms, alt.time->tflops, result.ours->tflops / alt.time->tflops);
    }
    out << "\n";
  }
  return any_failed ? 1 : 0;
}

}  // namespace tilegrid::cli
