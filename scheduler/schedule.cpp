#include "scheduler/schedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/error.h"
#include "scheduler/grid_traversal.h"
#include "scheduler/operand_padding.h"

namespace tilegrid::scheduler {
namespace {

ir::TensorDomain epilogueTile(const MatmulParams& p) {
  // sm_90: two slabs, one filled while the other's TMA store reads it.
  return buildSmemTile("smem_epilogue", {"m", ir::Val(p.epilogue_tile.m)}, {"n", ir::Val(p.epilogue_tile.n)},
                       p.arch == Arch::Sm90 ? 2 : 1, p.smem_epilogue);
}

}  // namespace

MatmulSchedule scheduleWith(MatmulProblem user_problem, const DeviceSpec& device, const MatmulParams& params) {
  user_problem.validate();
  device.validate();
  params.validate(user_problem, device);
  // Every domain describes what the kernel computes: with swap_ab, C^T = B^T * A^T.
  const MatmulProblem problem = params.kernelProblem(user_problem);
  const int64_t tiles_m = ceilDiv(problem.m, params.cta_tile.m);
  const int64_t tiles_n = ceilDiv(problem.n, params.cta_tile.n);
  ir::TensorDomain smem_a =
      buildSmemTile("smem_a", {"m", ir::Val(params.cta_tile.m)}, {"k", ir::Val(params.cta_tile.k)}, params.stages,
                    params.smem_a);
  ir::TensorDomain smem_b =
      buildSmemTile("smem_b", {"n", ir::Val(params.cta_tile.n)}, {"k", ir::Val(params.cta_tile.k)}, params.stages,
                    params.smem_b);
  const OperandBankCheck banks_a = checkOperandTile(smem_a, params.smem_a);
  const OperandBankCheck banks_b = checkOperandTile(smem_b, params.smem_b);
  const Major major_a = majorOfA(problem.layout);
  const Major major_b = majorOfB(problem.layout);
  const TileShape& cta = params.cta_tile;
  // A copy tile's rows run along the non-contiguous mode, its columns along the contiguous one.
  // Threads copy 16-byte pieces; a misaligned operand reads each piece from global memory in
  // narrower parts (params.vec_a / vec_b), but still writes it to shared memory at once.
  const auto copyTile = [&](const char* name, int64_t mn, Major major, DType type) {
    const int64_t piece = 16 / bytes(type);
    return major == Major::K ? buildTileCopy(name, mn, cta.k, piece, params.threadsPerCta())
                             : buildTileCopy(name, cta.k, mn, piece, params.threadsPerCta());
  };
  return MatmulSchedule{user_problem,
                        device,
                        params,
                        buildTileGrid(ir::Val(tiles_m), ir::Val(tiles_n), params.grid, params.cluster.m),
                        std::move(smem_a),
                        std::move(smem_b),
                        epilogueTile(params),
                        buildGlobalMatrix("gmem_a", {"m", ir::Val(problem.m)}, {"k", ir::Val(problem.k)}, major_a,
                                          params.pad_a ? granuleElems(problem.a_dtype) : 1),
                        buildGlobalMatrix("gmem_b", {"n", ir::Val(problem.n)}, {"k", ir::Val(problem.k)}, major_b,
                                          params.pad_b ? granuleElems(problem.b_dtype) : 1),
                        // C is row-major; the kernel problem of swap_ab reads it column-major.
                        buildGlobalMatrix("gmem_c", {"m", ir::Val(problem.m)}, {"n", ir::Val(problem.n)},
                                          params.swap_ab ? Major::MN : Major::K),
                        copyTile("copy_a", cta.m, major_a, problem.a_dtype),
                        copyTile("copy_b", cta.n, major_b, problem.b_dtype),
                        buildWarpGrid(cta.m / params.warp_tile.m, cta.n / params.warp_tile.n),
                        banks_a,
                        banks_b};
}

MatmulSchedule schedule(MatmulProblem problem, const DeviceSpec& device, const ScheduleOverrides& overrides) {
  problem.validate();
  return scheduleWith(problem, device, chooseParams(problem, device, overrides));
}

int64_t MatmulSchedule::tilesM() const { return ceilDiv(kernelProblem().m, params.cta_tile.m); }
int64_t MatmulSchedule::tilesN() const { return ceilDiv(kernelProblem().n, params.cta_tile.n); }

int64_t MatmulSchedule::workUnits() const {
  const auto extent = tile_grid.axis(0).extent.constValue();
  TG_INTERNAL_CHECK(extent.has_value()) << "tile grid of constant extents has extent " << tile_grid.axis(0).extent.toString();
  return *extent * problem.batch;
}

int64_t MatmulSchedule::ctas() const {
  // A work unit is a cluster tile: every CTA of the cluster takes one of its tiles.
  const int64_t cluster = params.cluster.m * params.cluster.n;
  if (!params.persistent) return cluster * workUnits();
  // Persistent: as many CTAs as are resident at once.
  const int64_t resident = waveCtas(params, problem, device) / cluster;
  // Stream-K can share less than a wave of units among every resident cluster (tg_split_work in
  // codegen/device/work_split.cuh decides in the kernel; clusters it leaves without work exit at
  // once).
  if (params.stream_k) return cluster * resident;
  return cluster * std::min<int64_t>(workUnits(), resident);
}

std::string MatmulSchedule::toString() const {
  const MatmulParams& p = params;
  std::string out;
  out += fmt::format("problem:  {}\n", problem.toString());
  if (p.swap_ab) out += fmt::format("kernel:   {} (C^T = B^T * A^T, stored transposed)\n", kernelProblem().toString());
  out += fmt::format("device:   {}\n", device.toString());
  out += fmt::format("params:   {}\n", p.toString());
  out += fmt::format("  cta tile {}, {} {} of {}, instruction {}, {} threads\n", p.cta_tile.toString(), p.mathGroups(),
                     p.arch == Arch::Sm80 ? "warps" : "consumer warpgroups", p.warp_tile.toString(),
                     p.instruction_tile.toString(), p.threadsPerCta());
  out += fmt::format("  {} stages, {} bytes of shared memory (device allows {})\n", p.stages, p.smemBytes(problem),
                     device.smem_per_block);
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
    std::string text = d->toString();
    std::string indented;
    for (size_t start = 0; start < text.size();) {
      const size_t end = text.find('\n', start);
      indented += "  " + text.substr(start, end - start) + "\n";
      start = end == std::string::npos ? text.size() : end + 1;
    }
    out += indented;
  }
  out += fmt::format("tile grid: {} x {} tiles{} = {}, {} work units, {} CTAs launched{}\n", tilesM(), tilesN(),
                     problem.batch > 1 ? fmt::format(" x batch {}", problem.batch) : "", tiles(), workUnits(), ctas(),
                     p.persistent ? " (persistent)" : "");
  return out;
}

}  // namespace tilegrid::scheduler
