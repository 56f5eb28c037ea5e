#include "cli/plan_command.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/parse.h"
#include "ir/error.h"
#include "scheduler/schedule.h"

namespace tilegrid::cli {
namespace {

nlohmann::json atomJson(const scheduler::SmemAtom& atom) {
  const auto b = atom.byteSwizzle();
  const auto e = atom.elementSwizzle();
  return {{"major", scheduler::toString(atom.major)},
          {"atom", scheduler::toString(atom.kind)},
          {"swizzle", {b[0], b[1], b[2]}},
          {"element_swizzle", {e[0], e[1], e[2]}},
          {"tma_swizzle", atom.tmaSwizzle()},
          {"wgmma_layout_type", atom.wgmmaLayoutType()}};
}

nlohmann::json scheduleJson(const scheduler::MatmulSchedule& s) {
  const auto& p = s.problem;
  nlohmann::json j;
  j["problem"] = {{"m", p.m},
                  {"n", p.n},
                  {"k", p.k},
                  {"batch", p.batch},
                  {"dtype", scheduler::toString(p.a_dtype)},
                  {"out_dtype", scheduler::toString(p.out_dtype)},
                  {"layout", scheduler::toString(p.layout)},
                  {"align", {p.align_a, p.align_b, p.align_c}}};
  j["device"] = {{"name", s.device.name},
                 {"arch", scheduler::toString(s.device.arch())},
                 {"sm_count", s.device.sm_count},
                 {"smem_per_block", s.device.smem_per_block},
                 {"l2_bytes", s.device.l2_bytes}};
  j["params"] = s.params;
  j["params"]["smem_bytes"] = s.params.smemBytes(p);
  j["params"]["threads"] = s.params.threadsPerCta();
  j["smem"] = {{"a", atomJson(s.params.smem_a)},
               {"b", atomJson(s.params.smem_b)},
               {"epilogue", atomJson(s.params.smem_epilogue)}};
  j["smem"]["a"]["conflict_free"] = s.banks_a.conflictFree();
  j["smem"]["b"]["conflict_free"] = s.banks_b.conflictFree();
  j["grid"] = {{"method", scheduler::toString(s.params.grid.method)},
               {"factors", s.params.grid.factors},
               {"group", scheduler::toString(s.params.grid.group)},
               {"tiles_m", s.tilesM()},
               {"tiles_n", s.tilesN()},
               {"tiles", s.tiles()},
               {"work_units", s.workUnits()},
               {"ctas", s.ctas()}};
  return j;
}

}  // namespace

CLI::App* addPlanCommand(CLI::App& app, PlanCommandOptions& options) {
  CLI::App* cmd = app.add_subcommand("plan", "Schedule a GEMM and show the params, smem atoms and scheduled domains");
  addPlanOptions(*cmd, options.plan);
  cmd->add_option("--format", options.format, "text | json")->capture_default_str();
  return cmd;
}

void runPlanCommand(const PlanCommandOptions& options, std::ostream& out) {
  checkFormat(options.format, {"text", "json"});
  const PlanRequest request = parsePlanOptions(options.plan);
  const scheduler::MatmulSchedule s = scheduler::schedule(request.problem, request.device, request.overrides);
  if (options.format == "json") {
    nlohmann::json j = scheduleJson(s);
    if (request.tuned) j["tuned"] = tunedNote(request);
    out << j.dump(2) << "\n";
  } else {
    out << s.toString();
    if (request.tuned) out << tunedNote(request) << "\n";
  }
}

}  // namespace tilegrid::cli
