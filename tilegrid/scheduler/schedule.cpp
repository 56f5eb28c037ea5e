#include "tilegrid/scheduler/schedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/epilogue_plan.h"
#include "tilegrid/scheduler/grid_traversal.h"
#include "tilegrid/scheduler/l2_policy.h"
#include "tilegrid/scheduler/operand_padding.h"

namespace tilegrid::scheduler {
namespace {

// C as the kernel problem (m, n) indexes it in the caller's row-major buffer: computing C^T
// (`transposed`), column-major.
ir::TensorDomain gmemC(const ir::Val& m, const ir::Val& n, bool transposed, const ir::Val& ldc) {
  return buildGlobalMatrix("gmem_c", {"m", m}, {"n", n}, transposed ? Major::MN : Major::K, ldc);
}

ir::TensorDomain epilogueTile(const MatmulParams& p) {
  // sm_90: two slabs, one filled while the other's TMA store reads it.
  return buildSmemTile("smem_epilogue", {"m", ir::Val(p.epilogue_tile.m)}, {"n", ir::Val(p.epilogue_tile.n)},
                       p.arch == Arch::Sm90 ? 2 : 1, p.smem_epilogue);
}

}  // namespace

namespace {

// The layout operand 'a', 'b' or 'c' of `problem` (a kernel problem) is read or written in.
OperandLayout layoutOf(const MatmulProblem& problem, const MatmulParams& params, char operand) {
  OperandLayout o;
  if (operand == 'c') {
    // C is the caller's row-major C; computing C^T the kernel reads it column-major.
    o.major = params.swap_ab ? Major::MN : Major::K;
    o.rows = params.swap_ab ? problem.n : problem.m;
    o.contiguous = params.swap_ab ? problem.m : problem.n;
    o.ld = o.user_ld = problem.leadingDimC();
    o.batch_stride = o.user_batch_stride = problem.batchStrideC();
    return o;
  }
  const bool a = operand == 'a';
  TG_INTERNAL_CHECK(a || operand == 'b') << "operand '" << operand << "': a matmul has a, b and c";
  o.major = a ? majorOfA(problem.layout) : majorOfB(problem.layout);
  o.rows = a ? problem.rowsA() : problem.rowsB();
  o.contiguous = a ? problem.contiguousA() : problem.contiguousB();
  o.user_ld = a ? problem.leadingDimA() : problem.leadingDimB();
  o.user_batch_stride = a ? problem.batchStrideA() : problem.batchStrideB();
  o.padded = a ? params.pad_a : params.pad_b;
  if (o.padded) {
    // The padded copy: rows rounded up to whole lines, batch entries back to back.
    o.ld = paddedPitchElems(a ? problem.a_dtype : problem.b_dtype, o.contiguous);
    o.batch_stride = o.ld * o.rows;
  } else {
    o.ld = o.user_ld;
    o.batch_stride = o.user_batch_stride;
  }
  return o;
}

// A size the kernel reads at launch (a named parameter) or has compiled in (a constant).
ir::Val shapeVal(bool at_launch, const char* name, int64_t value) {
  return at_launch ? ir::Val::param(name) : ir::Val(value);
}

// Refuses a problem whose shape parameters pass the limits the kernel's index types were printed
// for, before any code is generated.
void checkShapeLimits(const MatmulSchedule& s) {
  const std::map<std::string, int64_t> limits = s.shapeLimits();
  const ir::Bindings values = s.shapeValues();
  for (const auto& [name, limit] : limits) {
    const int64_t value = *values.get(name);
    TG_USER_CHECK(value <= limit) << "the problem " << s.problem.toString() << " needs " << name << " = " << value
                                  << ", past the " << limit << " its kernel indexes (cta tile "
                                  << s.params.cta_tile.toString()
                                  << (s.params.wide_tile_grid ? "" : ", params wide_tile_grid off")
                                  << "); use larger tiles, a wide tile grid, or split the problem";
  }
  const int64_t units = s.workUnits();
  TG_USER_CHECK(units <= kMaxExtent) << "the problem " << s.problem.toString() << " has " << units
                                     << " work units (tiles, over every batch entry): kernels count at most "
                                     << kMaxExtent << "; use larger tiles or fewer batch entries";
}

// Each line of `text` indented by two spaces.
std::string indentLines(const std::string& text) {
  std::string indented;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    indented += "  " + text.substr(start, end - start) + "\n";
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return indented;
}

}  // namespace

MatmulSchedule scheduleWith(MatmulProblem user_problem, const DeviceSpec& device, const MatmulParams& params) {
  user_problem.validate();
  device.validate();
  params.validate(user_problem, device);
  // Every domain describes what the kernel computes: with swap_ab, C^T = B^T * A^T.
  const MatmulProblem problem = params.kernelProblem(user_problem);
  const bool at_launch = params.shapeAtLaunch();
  namespace sp = shape_param;
  const ir::Val tiles_m = shapeVal(at_launch, sp::kTilesM, ceilDiv(problem.m, params.cta_tile.m));
  const ir::Val tiles_n = shapeVal(at_launch, sp::kTilesN, ceilDiv(problem.n, params.cta_tile.n));
  const ir::Val m = shapeVal(at_launch, sp::kM, problem.m), n = shapeVal(at_launch, sp::kN, problem.n),
                k = shapeVal(at_launch, sp::kK, problem.k);
  const OperandLayout layout_a = layoutOf(problem, params, 'a'), layout_b = layoutOf(problem, params, 'b'),
                      layout_c = layoutOf(problem, params, 'c');
  ir::TensorDomain smem_a =
      buildSmemTile("smem_a", {"m", ir::Val(params.cta_tile.m)}, {"k", ir::Val(params.cta_tile.k)}, params.stages,
                    params.smem_a);
  ir::TensorDomain smem_b =
      buildSmemTile("smem_b", {"n", ir::Val(params.compiledTile().n)}, {"k", ir::Val(params.cta_tile.k)}, params.stages,
                    params.smem_b);
  const OperandBankCheck banks_a = checkOperandTile(smem_a, params.smem_a);
  const OperandBankCheck banks_b = checkOperandTile(smem_b, params.smem_b);
  const TileShape& cta = params.cta_tile;
  // A copy tile's rows run along the non-contiguous mode, its columns along the contiguous one.
  // Threads copy 16-byte pieces; a misaligned operand reads each piece from global memory in
  // narrower parts (params.vec_a / vec_b), but still writes it to shared memory at once.
  const auto copyTile = [&](const char* name, int64_t mn, Major major, DType type) {
    const int64_t piece = 16 / bytes(type);
    return major == Major::K ? buildTileCopy(name, mn, cta.k, piece, params.threadsPerCta())
                             : buildTileCopy(name, cta.k, mn, piece, params.threadsPerCta());
  };
  MatmulSchedule s{user_problem,
                   device,
                   params,
                   buildTileGrid(tiles_m, tiles_n, params.grid, params.cluster.m),
                   std::move(smem_a),
                   std::move(smem_b),
                   epilogueTile(params),
                   buildGlobalMatrix("gmem_a", {"m", m}, {"k", k}, layout_a.major,
                                     shapeVal(at_launch, sp::kLda, layout_a.ld)),
                   buildGlobalMatrix("gmem_b", {"n", n}, {"k", k}, layout_b.major,
                                     shapeVal(at_launch, sp::kLdb, layout_b.ld)),
                   gmemC(m, n, params.swap_ab, shapeVal(at_launch, sp::kLdc, layout_c.ld)),
                   copyTile("copy_a", cta.m, layout_a.major, problem.a_dtype),
                   copyTile("copy_b", params.compiledTile().n, layout_b.major, problem.b_dtype),
                   buildWarpGrid(cta.m / params.warp_tile.m, cta.n / params.warp_tile.n),
                   banks_a,
                   banks_b,
                   {{"params", params.toString(), "scheduleWith: the caller's", {}}}};
  checkShapeLimits(s);
  return s;
}

COrientationDomains MatmulSchedule::cOrientation(bool transposed) const {
  if (transposed == params.swap_ab) return {params.smem_epilogue, smem_epilogue, gmem_c};
  MatmulParams turned = params;
  turned.swap_ab = transposed;
  turned.smem_epilogue = epilogueAtom(problem.out_dtype, params.epilogue_tile.n, transposed);
  // Sizes read at launch, or those of the problem turned that way (a kernel with the shape compiled
  // in holds one orientation; the other's functions are printed for it but never called).
  const bool at_launch = params.shapeAtLaunch();
  const MatmulProblem kernel = turned.kernelProblem(problem);
  namespace sp = shape_param;
  return {turned.smem_epilogue, epilogueTile(turned),
          gmemC(shapeVal(at_launch, sp::kM, kernel.m), shapeVal(at_launch, sp::kN, kernel.n), transposed,
                shapeVal(at_launch, sp::kLdc, operandLayout('c').ld))};
}

OperandLayout MatmulSchedule::operandLayout(char operand) const {
  return layoutOf(kernelProblem(), params, operand);
}

ir::Bindings MatmulSchedule::shapeValues() const {
  if (!params.shapeAtLaunch()) return {};
  const MatmulProblem p = kernelProblem();
  namespace sp = shape_param;
  ir::Bindings values;
  values.set(sp::kM, p.m).set(sp::kN, p.n).set(sp::kK, p.k);
  values.set(sp::kLda, operandLayout('a').ld).set(sp::kLdb, operandLayout('b').ld).set(sp::kLdc, operandLayout('c').ld);
  values.set(sp::kTilesM, tilesM()).set(sp::kTilesN, tilesN());
  if (params.groupAtLaunch()) {
    values.set(sp::kGridGroup, params.grid.group == GridGroup::N ? kGroupParamN : kGroupParamM);
    values.set(sp::kGridGrouped, gridExtents().first).set(sp::kGridOther, gridExtents().second);
  }
  if (params.factorAtLaunch()) values.set(sp::kGridFactor, params.grid.factors[0]);
  if (params.clusterAtLaunch()) values.set(sp::kClusterM, params.cluster.m);
  return values;
}

std::map<std::string, int64_t> MatmulSchedule::shapeLimits() const {
  if (!params.shapeAtLaunch()) return {};
  namespace sp = shape_param;
  const int64_t tiles = params.wide_tile_grid ? kMaxExtent : kNarrowTilesPerDim;
  std::map<std::string, int64_t> limits = {{sp::kM, kMaxExtent},   {sp::kN, kMaxExtent},   {sp::kK, kMaxExtent},
                                           {sp::kLda, kMaxExtent}, {sp::kLdb, kMaxExtent}, {sp::kLdc, kMaxExtent},
                                           {sp::kTilesM, tiles},   {sp::kTilesN, tiles}};
  if (params.groupAtLaunch()) {
    limits[sp::kGridGroup] = kGroupParamN;
    limits[sp::kGridGrouped] = limits[sp::kGridOther] = tiles;
  }
  return limits;
}

MatmulSchedule schedule(MatmulProblem problem, const DeviceSpec& device, const ScheduleOverrides& overrides) {
  problem.validate();
  DecisionTrace decisions;
  const MatmulParams params = chooseParams(problem, device, overrides, &decisions);
  MatmulSchedule s = scheduleWith(problem, device, params);
  s.decisions = std::move(decisions);
  const ReadOncePolicy l2 = readOncePolicy(s);
  const char* choice = l2.evict_first_a && l2.evict_first_b ? "A, B evict-first"
                       : l2.evict_first_a                   ? "A evict-first"
                       : l2.evict_first_b                   ? "B evict-first"
                                                            : "no policy";
  s.decisions.push_back({"l2 reads", choice, "readOncePolicy: the kernel problem's " + l2.why, {}});
  return s;
}

int64_t MatmulSchedule::tilesM() const { return ceilDiv(kernelProblem().m, params.cta_tile.m); }
int64_t MatmulSchedule::tilesN() const { return ceilDiv(kernelProblem().n, params.cta_tile.n); }

std::pair<int64_t, int64_t> MatmulSchedule::gridExtents() const {
  const int64_t cluster_tiles_m = ceilDiv(tilesM(), params.cluster.m);
  return params.grid.group == GridGroup::N ? std::pair(tilesN(), cluster_tiles_m) : std::pair(cluster_tiles_m, tilesN());
}

int64_t MatmulSchedule::kTailSteps() const {
  const int64_t cut = kernelProblem().k % params.cta_tile.k;
  return cut == 0 ? 0 : ceilDiv(cut, params.instruction_tile.k);
}

int64_t MatmulSchedule::workUnits() const {
  return ir::evaluate(tile_grid.axis(0).extent, shapeValues()) * problem.batch;
}

int64_t MatmulSchedule::ctas() const {
  // A work unit is a cluster tile: every CTA of the cluster takes one of its tiles.
  const int64_t cluster = params.cluster.m * params.cluster.n;
  if (!params.persistent) return cluster * workUnits();
  // Persistent: as many CTAs as are resident at once.
  const int64_t resident = waveCtas(params, problem, device) / cluster;
  // Stream-K can share less than a wave of units among every resident cluster (workSplit() plans
  // how; clusters it leaves without work exit at once).
  if (params.stream_k) return cluster * resident;
  return cluster * std::min<int64_t>(workUnits(), resident);
}

WorkSplit MatmulSchedule::workSplit(int64_t clusters) const {
  WorkSplit w = planWorkSplit(workUnits(), clusters, kTiles(), params.stream_k);
  if (params.arch == Arch::Sm80) w.dp_stride = clusters;
  // Pieces cut in step accumulate their sums where the order may vary and every unit's sum fits the
  // workspace's accumulation area.
  if (w.reduction == SplitReduction::InSlices && !params.deterministic && accumulates() &&
      w.units * accumulatedSumBytes() <= kAccumulationBytes) {
    w.reduction = SplitReduction::Accumulated;
  }
  return w;
}

std::string MatmulSchedule::toString() const {
  const MatmulParams& p = params;
  std::string out;
  out += fmt::format("problem:  {}\n", problem.toString());
  if (p.swap_ab) out += fmt::format("kernel:   {} (C^T = B^T * A^T, stored transposed)\n", kernelProblem().toString());
  out += fmt::format("device:   {}\n", device.toString());
  out += fmt::format("params:   {}\n", p.toString());
  if (p.dot) {
    const DotSplit split = planDotSplit(kernelProblem(), *p.dot, device);
    out += fmt::format("  dot kernel: {} threads a CTA, each keeping {}x{} sums and reading {} K element{} of a row at "
                       "once, {} reads of each row a step of {} K\n",
                       p.dot->threads, p.dot->rows, p.dot->cols, p.dot->vec, p.dot->vec == 1 ? "" : "s", p.dot->unroll,
                       p.dot->kStep());
    const std::string blocks = split.blocks == 1 ? "" : fmt::format(" x {} blocks", split.blocks);
    out += fmt::format("  cut into {}; {} CTAs launched ({} chunk{}{} x batch {}); sums added at L2{}\n",
                       split.toString(), split.chunks * split.blocks * problem.batch, split.chunks,
                       split.chunks == 1 ? "" : "s", blocks, problem.batch,
                       split.chunks == 1 ? " only where K has several chunks (here one: each CTA stores its own)" : "");
    if (!problem.epilogue.isIdentity()) out += planEpilogue(problem).toString();
    out += "scheduled domains:\n";
    for (const ir::TensorDomain* d : {&gmem_a, &gmem_b, &gmem_c}) out += indentLines(d->toString());
    return out;
  }
  out += fmt::format("  cta tile {}, {} {} of {}, instruction {}, {} threads\n", p.cta_tile.toString(), p.mathGroups(),
                     p.arch == Arch::Sm80 ? "warps" : "consumer warpgroups", p.warp_tile.toString(),
                     p.instruction_tile.toString(), p.threadsPerCta());
  out += fmt::format("  {} stages, {} bytes of shared memory (device allows {})\n", p.stages, p.smemBytes(problem),
                     device.smem_per_block);
  if (!problem.epilogue.isIdentity()) out += planEpilogue(problem, p).toString();
  out += fmt::format("smem atoms:\n  A: {}\n  B: {}\n  epilogue: {}\n", p.smem_a.toString(), p.smem_b.toString(),
                     p.smem_epilogue.toString());
  if (p.arch == Arch::Sm90) {
    out += fmt::format("  TMA swizzle A/B: {}/{}, wgmma layout type A/B: {}/{}\n", p.smem_a.tmaSwizzle(),
                       p.smem_b.tmaSwizzle(), p.smem_a.wgmmaLayoutType(), p.smem_b.wgmmaLayoutType());
  }
  const auto banks = [](const OperandBankCheck& c) {
    return fmt::format("ldmatrix worst phase {} wavefront(s), cp.async worst warp {} wavefronts{}",
                       c.ldmatrix_worst_phase, c.cp_async_worst_warp, c.conflictFree() ? " (conflict-free)" : "");
  };
  out += fmt::format("bank check:\n  A: {}\n  B: {}\n", banks(banks_a), banks(banks_b));
  out += "scheduled domains:\n";
  for (const ir::TensorDomain* d :
       {&tile_grid, &smem_a, &smem_b, &smem_epilogue, &gmem_a, &gmem_b, &gmem_c, &copy_a, &copy_b, &warp_grid}) {
    out += indentLines(d->toString());
  }
  out += fmt::format("tile grid: {} x {} tiles{} = {}, {} work units, {} CTAs launched{}\n", tilesM(), tilesN(),
                     problem.batch > 1 ? fmt::format(" x batch {}", problem.batch) : "", tiles(), workUnits(), ctas(),
                     p.persistent ? " (persistent)" : "");
  return out;
}

}  // namespace tilegrid::scheduler
