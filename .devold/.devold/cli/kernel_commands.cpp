#include "cli/kernel_commands.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "tilegrid/codegen/emit.h"
#include "cli/parse.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/dump.h"
#include "tilegrid/runtime/file_write.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::cli {
namespace {

struct Emitted {
  scheduler::MatmulSchedule schedule;
  codegen::KernelSource source;
};

Emitted scheduleAndEmit(PlanOptions options) {
  const PlanRequest request = parsePlanOptions(options);
  Emitted e{scheduler::schedule(request.problem, request.device, request.overrides), {}};
  e.source = codegen::emit(e.schedule);
  const runtime::DumpConfig& dump = runtime::DumpConfig::fromEnvironment();
  dump.write(runtime::DumpKind::Params, e.source.kernel_name, e.schedule.params.toString() + "\n");
  dump.write(runtime::DumpKind::Ir, e.source.kernel_name, e.schedule.toString());
  return e;
}

}  // namespace

CLI::App* addEmitCommand(CLI::App& app, EmitOptions& options) {
  CLI::App* cmd = app.add_subcommand("emit", "Write the CUDA source of the scheduled GEMM kernel");
  addPlanOptions(*cmd, options.plan);
  cmd->add_option("-o,--output", options.output, "Write to this file instead of standard output");
  return cmd;
}

void runEmitCommand(const EmitOptions& options, std::ostream& out) {
  const codegen::KernelSource source = scheduleAndEmit(options.plan).source;
  if (options.output.empty()) {
    out << source.cuda;
    return;
  }
  runtime::writeFileAtomically(options.output, source.cuda, "-o");
  out << fmt::format("wrote {} ({} bytes): kernel {}, launch {}\n", options.output, source.cuda.size(),
                     source.kernel_name, source.launch.toString());
}

CLI::App* addCompileCommand(CLI::App& app, CompileCommandOptions& options) {
  CLI::App* cmd = app.add_subcommand("compile", "Compile the scheduled kernel with NVRTC and print ptxas statistics");
  addPlanOptions(*cmd, options.plan);
  cmd->add_flag("--lineinfo", options.line_info, "Compile with -lineinfo");
  cmd->add_option("--format", options.format, "text | json")->capture_default_str();
  return cmd;
}

void runCompileCommand(const CompileCommandOptions& options, std::ostream& out) {
  checkChoice("--format", options.format, {"text", "json"});
  const Emitted emitted = scheduleAndEmit(options.plan);
  const scheduler::MatmulSchedule& schedule = emitted.schedule;
  const codegen::KernelSource& source = emitted.source;
  runtime::CompileOptions compile_options;
  compile_options.line_info = options.line_info;
  runtime::KernelCache& cache = runtime::KernelCache::global();
  const auto kernel = cache.get(source, schedule.params.arch, compile_options);
  const runtime::KernelStats& stats = kernel->statsFor();
  const auto cache_stats = cache.stats();
  const std::string served = cache_stats.disk_hits > 0 ? "disk cache" : "NVRTC";
  if (options.format == "json") {
    nlohmann::json j{{"kernel", source.kernel_name},
                     {"arch", runtime::nvrtcTarget(schedule.params.arch)},
                     {"registers", stats.registers},
                     {"spill_stores", stats.spill_stores},
                     {"spill_loads", stats.spill_loads},
                     {"static_smem", stats.smem_bytes},
                     {"stack", stats.stack_bytes},
                     {"dynamic_smem", source.launch.dynamic_smem_bytes},
                     {"cubin_bytes", kernel->cubin.size()},
                     {"warnings", kernel->warnings},
                     {"served_from", served},
                     {"cache_key", runtime::KernelCache::key(source, schedule.params.arch, compile_options)}};
    out << j.dump(2) << "\n";
    return;
  }
  out << fmt::format("kernel {} ({})\n", source.kernel_name, runtime::nvrtcTarget(schedule.params.arch));
  out << fmt::format("  {} registers, {} bytes spill stores, {} bytes spill loads, {} bytes stack\n", stats.registers,
                     stats.spill_stores, stats.spill_loads, stats.stack_bytes);
  out << fmt::format("  {} bytes static smem, {} bytes dynamic smem, {} bytes of CUBIN\n", stats.smem_bytes,
                     source.launch.dynamic_smem_bytes, kernel->cubin.size());
  out << fmt::format("  launch {}\n", source.launch.toString());
  for (const std::string& w : kernel->warnings) out << "  " << w << "\n";
  out << "  served from " << served << "\n";
}

}  // namespace tilegrid::cli
