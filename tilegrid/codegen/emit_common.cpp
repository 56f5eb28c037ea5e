#include "tilegrid/codegen/emit_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "tilegrid/codegen/cuda_dtype.h"
#include "tilegrid/ir/affine.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/indexer.h"

namespace tilegrid::codegen {
namespace {

// A traversal whose group is read at launch is named without it: one kernel serves both groups.
std::string gridTag(const scheduler::GridTraversal& g, bool group_at_launch, bool factor_at_launch) {
  std::string factors;
  for (size_t i = 0; i < g.factors.size() && !factor_at_launch; ++i) factors += (i ? "x" : "") + std::to_string(g.factors[i]);
  const std::string group = group_at_launch ? "" : scheduler::toString(g.group);
  switch (g.method) {
    case scheduler::GridMethod::None: return std::string("raster") + scheduler::toString(g.group);
    case scheduler::GridMethod::SplitMerge: return "split" + factors + group;
    case scheduler::GridMethod::SwizzleMerge: return "smerge" + factors + group;
  }
  return "?";
}

}  // namespace


namespace {
ir::Val offsetExpression(const ir::TensorDomain& tile) {
  ir::Indexer indexer(tile);
  const ir::IndexResult alloc =
      indexer.allocationIndex({ir::Val::loopIndex("x"), ir::Val::loopIndex("y"), ir::Val::loopIndex("s")});
  return indexer.linearize(tile.allocation(), alloc.indices);
}

int64_t logicalExtent(const ir::TensorDomain& tile, size_t axis) {
  return *tile.iterDomain(tile.logical()[axis]).extent.constValue();
}
}  // namespace

SmemOffsets::SmemOffsets(const ir::TensorDomain& tile)
    : expression_(offsetExpression(tile)),
      offset_(expression_, {"x", "y", "s"}),
      rows_(logicalExtent(tile, 0)),
      cols_(logicalExtent(tile, 1)),
      stages_(logicalExtent(tile, 2)) {}

int64_t SmemOffsets::operator()(int64_t row, int64_t col, int64_t stage) const {
  const int64_t v[3] = {row, col, stage};
  return offset_(v);
}

std::optional<int64_t> constantStep(const ir::TensorDomain& gmem, int axis) {
  TG_INTERNAL_CHECK(axis == 0 || axis == 1) << gmem.name() << " has logical axes 0 and 1, not " << axis;
  ir::Indexer indexer(gmem);
  const ir::IndexResult alloc = indexer.allocationIndex({ir::Val::loopIndex("x0"), ir::Val::loopIndex("x1")});
  if (!alloc.predicates.empty()) return std::nullopt;
  const auto form = ir::affineIn(indexer.linearize(gmem.allocation(), alloc.indices), axis == 0 ? "x0" : "x1");
  if (!form) return std::nullopt;
  return form->step.constValue();
}

std::optional<GmemSteps> gmemSteps(const ir::TensorDomain& gmem) {
  ir::Indexer indexer(gmem);
  const ir::IndexResult alloc = indexer.allocationIndex({ir::Val::loopIndex("x0"), ir::Val::loopIndex("x1")});
  if (!alloc.predicates.empty()) return std::nullopt;
  const ir::Val offset = indexer.linearize(gmem.allocation(), alloc.indices);
  const auto along_mn = ir::affineIn(offset, "x0");
  if (!along_mn) return std::nullopt;
  const auto along_k = ir::affineIn(along_mn->base, "x1");
  if (!along_k) return std::nullopt;
  // The mn step must not change with k (no x0 * x1 term), and nothing may be left at the origin.
  const auto holds_index = [](const ir::Val& v) {
    const auto vars = v.freeVars();
    return std::find(vars.begin(), vars.end(), "x0") != vars.end() || std::find(vars.begin(), vars.end(), "x1") != vars.end();
  };
  if (holds_index(along_mn->step) || holds_index(along_k->step) || along_k->base.constValue() != 0) return std::nullopt;
  return GmemSteps{along_mn->step, along_k->step};
}

std::optional<PaddedCopy> paddedCopy(const scheduler::MatmulSchedule& s, char operand) {
  TG_INTERNAL_CHECK(operand == 'a' || operand == 'b') << "operand '" << operand << "': only A and B are padded";
  const scheduler::OperandLayout o = s.operandLayout(operand);
  if (!o.padded) return std::nullopt;
  const scheduler::MatmulProblem problem = s.kernelProblem();
  const auto esize = static_cast<uint64_t>(scheduler::bytes(operand == 'a' ? problem.a_dtype : problem.b_dtype));
  TG_INTERNAL_CHECK(o.ld * static_cast<int64_t>(esize) % 16 == 0 && o.ld >= o.contiguous)
      << "padded " << operand << ": rows of " << o.ld << " elements are not 16-byte aligned";
  PaddedCopy copy;
  copy.rows = static_cast<uint64_t>(o.rows * problem.batch);
  copy.row_bytes = static_cast<uint64_t>(o.contiguous) * esize;
  copy.src_pitch = static_cast<uint64_t>(o.user_ld) * esize;
  copy.dst_pitch = static_cast<uint64_t>(o.ld) * esize;
  copy.rows_per_batch = static_cast<uint64_t>(o.rows);
  copy.src_batch_pitch = static_cast<uint64_t>(o.user_batch_stride) * esize;
  return copy;
}

namespace {

// The element types and layout of a problem, for names: bf16_tn, e4m3xe5m2tobf16_tn.
std::string typesAndLayout(const scheduler::MatmulProblem& p) {
  std::string types = scheduler::toString(p.a_dtype);
  if (p.b_dtype != p.a_dtype) types += std::string("x") + scheduler::toString(p.b_dtype);
  if (p.out_dtype != p.a_dtype) types += std::string("to") + scheduler::toString(p.out_dtype);
  std::string layout = scheduler::toString(p.layout);
  for (char& c : layout) c = static_cast<char>(std::tolower(c));
  return types + "_" + layout;
}

// What the problem adds to a name beyond its types: 8-bit inputs' scales (where the epilogue applies
// them, tensor and row, its expression reads alike; block scales change the main loop), and a fused
// epilogue's tag of its expression and its operands' types (the source prints both).
std::string scaleAndEpilogueTag(const scheduler::MatmulProblem& p) {
  std::string name;
  if (p.scale != scheduler::ScaleMode::None) name += std::string("_scale") + scheduler::toString(p.scale);
  if (!p.epilogue.isIdentity()) {
    std::string what = p.epilogue.toString();
    for (const auto& type : {p.bias_dtype, p.c_in_dtype, p.residual_dtype, p.aux_dtype}) {
      what += std::string(" ") + scheduler::toString(type.value_or(p.out_dtype));
    }
    name += fmt::format("_ep{:08x}", static_cast<uint32_t>(std::hash<std::string>{}(what)));
  }
  return name;
}

// A dot kernel's name: its sums, threads and reads; computing C^T, the caller's problem turned
// around; its launch names the padded copies it reads.
std::string dotName(const scheduler::MatmulSchedule& s, bool launch) {
  const scheduler::DotParams& d = *s.params.dot;
  std::string name = fmt::format("tilegrid_dot_{}_r{}x{}_t{}_v{}_u{}", typesAndLayout(s.problem), d.rows, d.cols,
                                 d.threads, d.vec, d.unroll);
  if (s.params.swap_ab) name += "_swapab";
  if (launch && (s.params.pad_a || s.params.pad_b)) name += std::string("_pad") + (s.params.pad_a ? "a" : "") + (s.params.pad_b ? "b" : "");
  return name + scaleAndEpilogueTag(s.problem);
}

// `launch`: the name of the kernel with what its launch passes beyond the problem (launchName).
std::string nameOf(const scheduler::MatmulSchedule& s, bool launch) {
  if (s.params.dot) return dotName(s, launch);
  // The kernel's configuration, never its problem size unless the size is compiled in.
  const auto& p = s.problem;
  const auto& t = s.params.cta_tile;
  // A kernel holding several tile widths names their range; its launch names the width too.
  const std::string width = s.params.width_at_launch
                                ? fmt::format("{}to{}", s.params.narrowest_width, s.params.widest_width)
                                : std::to_string(t.n);
  std::string name = fmt::format("tilegrid_{}_{}_{}x{}x{}_s{}_{}", s.params.arch == scheduler::Arch::Sm80 ? "sm80" : "sm90",
                                 typesAndLayout(p), t.m, width, t.k, s.params.stages, gridTag(s.params.grid, !launch && s.params.groupAtLaunch(), !launch && s.params.factorAtLaunch()));
  if (launch && s.params.width_at_launch) name += fmt::format("_n{}", t.n);
  if (s.params.shapeAtLaunch()) {
    // What the problem fixes about the code. sm_90: 3-D tensor maps for batches, and C stored by its
    // threads where TMA cannot store it and the kernel does not carry both ways (storesCBothWays).
    // sm_80: the staged epilogue (16-byte stores) or direct stores, in pairs where C is 4-byte
    // aligned.
    if (s.params.arch == scheduler::Arch::Sm90) {
      if (p.batch != 1) name += "_batched";
      if ((launch || !s.storesCBothWays()) && !tmaStoresC(s)) name += "_directc";
    } else {
      if (!s.params.stagedEpilogue(p)) name += "_directc";
      if (p.align_c < 2) name += "_cscalar";
    }
    if (s.params.wide_tile_grid) name += "_widegrid";
    // The factor, cluster size and C's orientation and stores compiled in, where a kernel of the
    // configuration could otherwise read them.
    if (s.params.launch_choices_compiled) name += "_fixed";
  } else {
    name += fmt::format("_{}x{}x{}", p.m, p.n, p.k);
    if (p.batch != 1) name += fmt::format("_b{}", p.batch);
    if (!p.packed()) name += fmt::format("_ld{}x{}x{}", p.leadingDimA(), p.leadingDimB(), p.leadingDimC());
    if (!p.packed() && p.batch != 1) name += fmt::format("_bs{}x{}x{}", p.batchStrideA(), p.batchStrideB(), p.batchStrideC());
  }
  // A kernel holding several cluster sizes is one kernel for them; its launch names the one it runs.
  if (s.params.cluster.m * s.params.cluster.n > 1 && (launch || !s.params.clusterAtLaunch())) {
    name += fmt::format("_c{}x{}", s.params.cluster.m, s.params.cluster.n);
  }
  if (s.params.vec_a != 8 || s.params.vec_b != 8) name += fmt::format("_v{}{}", s.params.vec_a, s.params.vec_b);
  // The runtime pads an operand before the launch; the kernel's code is that of an aligned operand.
  if (launch && (s.params.pad_a || s.params.pad_b)) name += std::string("_pad") + (s.params.pad_a ? "a" : "") + (s.params.pad_b ? "b" : "");
  // sm_90 consumer warpgroups take 64 rows unless the name says otherwise.
  if (s.params.arch == scheduler::Arch::Sm90 && s.params.warp_tile.m != 64) name += fmt::format("_wg{}", s.params.warp_tile.m);
  if (s.params.pingpong) name += "_pingpong";
  if (s.params.stream_k) name += "_sk";
  // A kernel holding both orientations of C is one kernel for both; its launch names the one it runs.
  if (s.params.swap_ab && (launch || !s.cOrientationAtLaunch())) name += "_swapab";
  if (s.params.mma_order == scheduler::MmaOrder::Columns) name += "_mmacols";
  return name + scaleAndEpilogueTag(p);
}

}  // namespace

std::string kernelName(const scheduler::MatmulSchedule& s) { return nameOf(s, false); }

std::string launchName(const scheduler::MatmulSchedule& s) { return nameOf(s, true); }

bool tmaStoresC(const scheduler::MatmulSchedule& s) {
  // TMA stores need C's rows and batch entries 16-byte aligned (the alignment C promises), and
  // write whole 16-byte granules: a row that ends inside one would be written past its end.
  return s.problem.rowsOfCAreWhole16Bytes();
}

int64_t fixedSize(const scheduler::MatmulSchedule& s, int64_t value) { return s.params.shapeAtLaunch() ? 0 : value; }

std::string kernelSummary(const scheduler::MatmulSchedule& s) {
  const scheduler::MatmulProblem prob = s.kernelProblem();  // computing C^T, the problem turned around
  const std::string problem = s.params.shapeAtLaunch() ? std::string("any problem of its configuration") : prob.toString();
  if (!s.cOrientationAtLaunch()) return problem + "; " + s.params.toString(scheduler::ParamsText::Kernel);
  // Described as it stores C straight, whichever orientation this launch takes.
  scheduler::MatmulParams straight = s.params;
  straight.swap_ab = false;
  straight.smem_epilogue = s.cOrientation(false).atom;
  return problem + "; " + straight.toString(scheduler::ParamsText::Kernel) + "; C straight or transposed (at launch)";
}

ConfigBlock commonConfig(const scheduler::MatmulSchedule& s) {
  const scheduler::MatmulProblem prob = s.kernelProblem();
  const auto& p = s.params;
  ConfigBlock config(kernelName(s));
  config.type("in_t", cudaTypeName(prob.a_dtype)).type("out_t", cudaTypeName(prob.out_dtype));
  config.value("THREADS", p.threadsPerCta())
      .value("BM", p.cta_tile.m)
      .value("BN", p.compiledTile().n, p.width_at_launch ? "the widest tile the kernel holds (WIDTH_AT_LAUNCH)" : "")
      .value("BK", p.cta_tile.k)
      .value("STAGES", p.stages)
      .flag("GRID_FACTOR_AT_LAUNCH", p.factorAtLaunch(),
            "the tile index is instanced per traversal factor (powers of two to GRID_FACTOR); the launch picks "
            "prob.grid_factor")
      .value("GRID_FACTOR", p.factorAtLaunch() ? scheduler::kMaxFactorAtLaunch : p.grid.factors[0],
             p.factorAtLaunch() ? "the largest factor the kernel holds" : "")
      .flag("SHAPE_AT_LAUNCH", p.shapeAtLaunch(), "sizes come from the kernel's tg_problem argument, not FIXED_*")
      .value("FIXED_M", fixedSize(s, prob.m))
      .value("FIXED_N", fixedSize(s, prob.n))
      .value("FIXED_K_TILES", fixedSize(s, s.kTiles()))
      .value("FIXED_UNITS", fixedSize(s, s.workUnits() / prob.batch), "work units per batch entry")
      .value("FIXED_BATCH_STRIDE_C", fixedSize(s, s.operandLayout('c').batch_stride));
  return config;
}

int64_t streamKFlagWords(const scheduler::DeviceSpec& device) {
  return (2 * device.sm_count * scheduler::kMaxConsumersSm90 + 63) / 64 * 64;
}

uint64_t workspaceZeroBytes(const scheduler::DeviceSpec& device) {
  return static_cast<uint64_t>(streamKFlagWords(device)) * 4 + static_cast<uint64_t>(scheduler::kAccumulationBytes);
}

KernelArg streamKWorkspace(const scheduler::DeviceSpec& device, int64_t slots, int64_t sum_elems) {
  const int64_t flag_words = streamKFlagWords(device);
  TG_INTERNAL_CHECK(2 * slots <= flag_words) << slots << " stream-K slots need more flags than the " << flag_words
                                             << " words of the device's flag area";
  const auto n = static_cast<uint64_t>(slots);
  KernelArg workspace{"workspace", ArgKind::Pointer, "workspace", {}, {}};
  workspace.workspace_bytes = workspaceZeroBytes(device) + n * static_cast<uint64_t>(sum_elems) * 4;
  return workspace;
}

}  // namespace tilegrid::codegen
