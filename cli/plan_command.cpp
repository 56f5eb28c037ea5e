#include "cli/plan_command.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tilegrid/scheduler/epilogue_plan.h"
#include <optional>
#include <ostream>

#include "cli/parse.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/scheduler/one_wave_tile.h"
#include "tilegrid/scheduler/schedule.h"

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

// How a persistent launch of the planned grid divides its work units: the split the kernel receives.
std::string splitText(const scheduler::MatmulSchedule& s) {
  if (!s.params.persistent) return "";
  const scheduler::WorkSplit split = s.workSplit();
  std::string text = "work:     " + split.describe();
  if (s.params.stream_k && split.reduction == scheduler::SplitReduction::None) {
    text += "; stream-K cuts nothing (it shares a last wave only where a share and its hand-over take less than a "
            "whole unit, given 4 K tiles a cluster; under a wave, one at most 80% full)";
  }
  return text + "\n";
}

nlohmann::json splitJson(const scheduler::WorkSplit& w) {
  nlohmann::json j = {{"units", w.units},
                      {"clusters", w.clusters},
                      {"k_tiles_per_unit", w.k_tiles},
                      {"waves", static_cast<double>(w.units) / static_cast<double>(w.clusters)},
                      {"whole_units", w.dp_units},
                      {"whole_unit_clusters", w.dp_stride},
                      {"shared_units", w.sharedUnits()},
                      {"reduction", scheduler::toString(w.reduction)}};
  if (w.sharedUnits() == 0) return j;
  j["k_tiles_per_cluster"] = {w.sk_share, w.sk_share + (w.sk_extra > 0 ? 1 : 0)};
  j["pieces_per_unit"] = w.pieces;
  nlohmann::json shared = nlohmann::json::array();
  for (int64_t u = w.dp_units; u < w.units; ++u) {
    const scheduler::UnitSharing sh = w.sharing(u);
    shared.push_back({{"unit", u}, {"clusters", {sh.first_cluster, sh.last_cluster}}, {"finisher", sh.finisher}});
  }
  j["shared"] = std::move(shared);
  return j;
}

// The sm_90 tile ranking behind the heuristic's choice; empty where the user chose the tile or the
// heuristic did not rank.
std::vector<scheduler::RankedTile> tileRanking(const PlanRequest& request, const scheduler::MatmulSchedule& s) {
  if (s.params.arch != scheduler::Arch::Sm90 || !s.params.persistent || request.overrides.cta_tile) return {};
  return scheduler::rankSm90TilesAsRead(s.kernelProblem(), s.device, s.params.stream_k, s.params.swap_ab);
}

// The rule the schedule's decision trace gives for `what`, or "".
std::string ruleOf(const scheduler::MatmulSchedule& s, const std::string& what) {
  std::string rule;
  for (const scheduler::Decision& d : s.decisions) {
    if (d.what == what) rule = d.rule;  // the last decision on it stands
  }
  return rule;
}

bool decidedBy(const scheduler::MatmulSchedule& s, const std::string& what, const std::string& function) {
  return ruleOf(s, what).rfind(function + ":", 0) == 0;
}

// Why the kernel computes C = A B or C^T = B^T A^T, where the ranking of orientations decided: the
// score of each orientation's ranked choice.
std::string orientationText(const scheduler::MatmulSchedule& s) {
  if (!decidedBy(s, "orientation", "rankOrientations")) return "";
  const scheduler::OrientationRanking r = scheduler::rankOrientations(s.problem, s.device, s.params.stream_k);
  if (r.narrow_n) return "orientation: C^T = B^T A^T, swap_ab (N of 64 or less: wgmma's 64 rows run along N)\n";
  if (!r.straight && !r.swapped) return "";
  const auto text = [](const std::optional<scheduler::RankedTile>& t) {
    return t ? fmt::format("{:.3f} ({}x{} in {}x1 clusters)", t->score(), t->cta.m, t->cta.n, t->cluster_m)
             : std::string("not ranked");
  };
  return fmt::format("orientation: {} (ranked choice for C = A B: {}; for C^T = B^T A^T: {}; swapping needs {:.0f}% more)\n",
                     s.params.swap_ab ? "C^T = B^T A^T, swap_ab" : "C = A B", text(r.straight), text(r.swapped),
                     (scheduler::OrientationRanking::kMargin - 1) * 100);
}

// The 128-row tiles whose width fills one wave, where the heuristic chose them (oneWaveTileSm90). They
// replace whatever the ranking chose, so plan shows the fit instead of the ranking and the orientation.
std::optional<scheduler::OneWaveTile> oneWaveTile(const scheduler::MatmulSchedule& s) {
  if (!decidedBy(s, "tile", "fitOneWaveSm90")) return std::nullopt;
  return scheduler::oneWaveTileSm90(s.problem, s.device);
}

// Each decision and its rule; the options a model weighed, with its figure for each, under it (the
// tile ranking's are shown in full by rankingText).
std::string decisionsText(const scheduler::MatmulSchedule& s) {
  std::string text = "decisions:\n";
  for (const scheduler::Decision& d : s.decisions) {
    text += fmt::format("  {:<15} {:<22} {}\n", d.what, d.choice, d.rule);
    if (d.what == "tile") continue;
    for (const scheduler::Candidate& c : d.candidates) {
      const bool bytes = c.measure == "DRAM bytes";
      text += fmt::format("  {:<15}   {:<40} {}{}\n", "", c.option,
                          bytes ? fmt::format("{:.1f} MB", c.modelled / 1e6) : fmt::format("{:.3f}", c.modelled),
                          bytes ? " of DRAM reads" : " " + c.measure);
    }
  }
  return text;
}

nlohmann::json decisionsJson(const scheduler::MatmulSchedule& s) {
  nlohmann::json j = nlohmann::json::array();
  for (const scheduler::Decision& d : s.decisions) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const scheduler::Candidate& c : d.candidates) {
      nlohmann::json candidate{{"option", c.option}, {"modelled", c.modelled}, {"measure", c.measure}};
      if (c.modelled_us > 0) candidate["modelled_us"] = c.modelled_us;
      candidates.push_back(candidate);
    }
    j.push_back({{"what", d.what}, {"choice", d.choice}, {"rule", d.rule}, {"candidates", candidates}});
  }
  return j;
}

std::string oneWaveText(const std::optional<scheduler::OneWaveTile>& fit, const scheduler::MatmulSchedule& s) {
  if (!fit) return "";
  return fmt::format("tiles:    128x{} alone{} fill one wave: {} tiles on {} SMs, {:.1f}% of the padded grid real output\n",
                     fit->width, fit->swap_ab ? " computing C^T = B^T A^T" : "", fit->tiles, s.device.sm_count,
                     fit->useful * 100);
}

std::string rankingText(const std::vector<scheduler::RankedTile>& ranked, const scheduler::MatmulSchedule& s) {
  if (ranked.empty()) return "";
  std::string text = "tiles:    ranked by speed on full waves x useful share of the padded grid x busy share of the waves "
                     "(modelled time: the score at " +
                     fmt::format("{:.2f}", scheduler::kFullWaveTflopsPerSm) + " TFLOP/s an SM)\n";
  for (const auto& r : ranked) {
    const std::string rows = r.consumer_rows == 64 ? "" : fmt::format(", {}-row warpgroups", r.consumer_rows);
    text += fmt::format(
        "          {}x{} in {}x1 clusters{}: {:.2f} x {:.3f} x {:.3f} = {:.3f} ({:.2f} waves, {} units at once, {:.1f} us){}\n",
        r.cta.m, r.cta.n, r.cluster_m, rows, r.speed, r.fit.useful, r.fit.busy, r.score(), r.fit.waves, r.fit.slots,
        scheduler::modelledSm90Us(s.kernelProblem(), s.device, r.score()),
        r.chosen ? "  <- chosen" : r.eligible() ? "" : "  (not eligible: " + r.not_eligible + ")");
  }
  return text;
}

nlohmann::json rankingJson(const std::vector<scheduler::RankedTile>& ranked, const scheduler::MatmulSchedule& s) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& r : ranked) {
    j.push_back({{"cta_tile", {r.cta.m, r.cta.n, r.cta.k}},
                 {"cluster_m", r.cluster_m},
                 {"consumer_rows", r.consumer_rows},
                 {"speed", r.speed},
                 {"useful", r.fit.useful},
                 {"busy", r.fit.busy},
                 {"waves", r.fit.waves},
                 {"score", r.score()},
                 {"modelled_us", scheduler::modelledSm90Us(s.kernelProblem(), s.device, r.score())},
                 {"eligible", r.eligible()},
                 {"chosen", r.chosen}});
    if (!r.eligible()) j.back()["not_eligible"] = r.not_eligible;
  }
  return j;
}

nlohmann::json scheduleJson(const scheduler::MatmulSchedule& s) {
  const auto& p = s.problem;
  nlohmann::json j;
  j["problem"] = {{"m", p.m},
                  {"n", p.n},
                  {"k", p.k},
                  {"batch", p.batch},
                  {"dtype", scheduler::toString(p.a_dtype)},
                  {"b_dtype", scheduler::toString(p.b_dtype)},
                  {"scale", scheduler::toString(p.scale)},
                  {"out_dtype", scheduler::toString(p.out_dtype)},
                  {"layout", scheduler::toString(p.layout)},
                  {"align", {p.align_a, p.align_b, p.align_c}},
                  {"ld", {p.leadingDimA(), p.leadingDimB(), p.leadingDimC()}},
                  {"batch_stride", {p.batchStrideA(), p.batchStrideB(), p.batchStrideC()}}};
  j["epilogue"] = scheduler::planEpilogue(p, s.params);
  j["kernel"] = {{"name", codegen::kernelName(s)}, {"shape_at_launch", s.params.shapeAtLaunch()}};
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
  if (s.params.persistent) j["grid"]["work_split"] = splitJson(s.workSplit());
  if (s.params.dot) {
    // The dot kernel runs the problem; the tile fields above describe the tiled kernel it replaces.
    const scheduler::DotSplit split = scheduler::planDotSplit(s.kernelProblem(), *s.params.dot, s.device);
    j["dot"] = {{"k_step", s.params.dot->kStep()},
                {"blocks", split.blocks},
                {"chunks", split.chunks},
                {"chunk_steps", split.chunk_steps},
                {"ctas", split.chunks * split.blocks * p.batch}};
  }
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
  checkChoice("--format", options.format, {"text", "json"});
  const PlanRequest request = parsePlanOptions(options.plan);
  const scheduler::MatmulSchedule s = scheduler::schedule(request.problem, request.device, request.overrides);
  const std::optional<scheduler::OneWaveTile> fit = oneWaveTile(s);
  const std::vector<scheduler::RankedTile> ranked = fit ? std::vector<scheduler::RankedTile>{} : tileRanking(request, s);
  if (options.format == "json") {
    nlohmann::json j = scheduleJson(s);
    j["decisions"] = decisionsJson(s);
    if (!ranked.empty()) j["tile_ranking"] = rankingJson(ranked, s);
    if (fit) {
      j["one_wave_tile"] = {{"width", fit->width}, {"swap_ab", fit->swap_ab}, {"tiles", fit->tiles}, {"useful", fit->useful}};
    }
    if (request.tuned) j["tuned"] = tunedNote(request);
    out << j.dump(2) << "\n";
  } else {
    out << s.toString() << decisionsText(s);
    // A dot kernel's plan is in the schedule's text; the tiled kernel's models are for the one it replaces.
    if (!s.params.dot) out << (fit ? oneWaveText(fit, s) : orientationText(s) + rankingText(ranked, s)) << splitText(s);
    out << "kernel: " << codegen::kernelName(s)
        << (s.params.shapeAtLaunch() ? " (reads M, N, K, batch, leading dimensions and strides at launch: one "
                                       "compiled kernel for every problem of this configuration)\n"
                                     : " (problem sizes compiled in)\n");
    if (request.tuned) out << tunedNote(request) << "\n";
  }
}

}  // namespace tilegrid::cli
