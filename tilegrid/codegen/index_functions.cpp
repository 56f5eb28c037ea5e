#include "tilegrid/codegen/index_functions.h"

#include <algorithm>

#include "tilegrid/codegen/cuda_printer.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/indexer.h"

namespace tilegrid::codegen {
namespace {

using ir::Val;

// The largest value of a domain's extent: the constant, or the limit a shape parameter has.
int64_t extentOf(const ir::TensorDomain& d, ir::IterDomainId id, const VarRanges& shape = {}) {
  const ir::Val& extent = d.iterDomain(id).extent;
  const auto e = ir::maxValue(extent, shape);
  TG_INTERNAL_CHECK(e.has_value()) << d.name() << "'s extent " << extent.toString() << " has no bound";
  return *e;
}

// Parameters named after the logical axes, each ranging over its extent.
std::vector<IndexFunctionParam> logicalParams(const ir::TensorDomain& d, const std::vector<std::string>& names,
                                              const VarRanges& shape) {
  std::vector<IndexFunctionParam> params;
  for (size_t i = 0; i < names.size(); ++i) params.push_back({names[i], extentOf(d, d.logical()[i], shape) - 1});
  return params;
}

std::vector<Val> vars(const std::vector<std::string>& names) {
  std::vector<Val> v;
  for (const auto& n : names) v.push_back(Val::loopIndex(n));
  return v;
}

// Element offset of a logical coordinate in `d`'s allocation (with its strides, if any). With
// `shape`, the function takes the problem parameters.
std::string offsetFunction(const std::string& name, const std::string& comment, const ir::TensorDomain& d,
                           const std::vector<std::string>& axis_names,
                           const std::optional<VarRanges>& shape = std::nullopt, const std::string& tag = {}) {
  TG_INTERNAL_CHECK(d.loop() == d.logical()) << d.name() << " must be indexed from its logical domain";
  ir::Indexer indexer(d);
  const ir::IndexResult alloc = indexer.allocationIndex(vars(axis_names));
  TG_INTERNAL_CHECK(alloc.predicates.empty()) << d.name() << "'s allocation is not exact";
  const Val offset = indexer.linearize(d.allocation(), alloc.indices);
  return emitIndexFunction(name, comment, logicalParams(d, axis_names, shape.value_or(VarRanges{})),
                           {{"offset", offset}}, shape, {}, tag);
}

}  // namespace

std::string emitMatmulIndexFunctions(const scheduler::MatmulSchedule& s) {
  // Functions of the problem's shape take the launch's problem parameters, in both modes, so that
  // kernels call them alike; with the shape compiled in they read none.
  const VarRanges limits = s.shapeLimits();
  std::string out;
  {
    namespace sp = scheduler::shape_param;
    const bool at_launch = s.params.groupAtLaunch();
    // The tile index takes the traversal's factor as a template parameter: read at launch, the
    // kernel instances it per factor it holds (tg_with_launch_choice); compiled in, it is unused.
    const Val factor = s.params.factorAtLaunch() ? Val::param(sp::kGridFactor) : Val(s.params.grid.factors[0]);
    // So does the cluster size, where the kernel holds several (clusterAtLaunch).
    const bool cluster_at_launch = s.params.clusterAtLaunch();
    const Val cluster = cluster_at_launch ? Val::param(sp::kClusterM) : Val(s.params.cluster.m);
    const scheduler::TileGridIndex grid =
        at_launch ? scheduler::indexTileGridAtLaunch(Val::param(sp::kTilesM), Val::param(sp::kGridGrouped),
                                                     Val::param(sp::kGridOther), s.params.grid.method, cluster,
                                                     factor, Val::param(sp::kGridGroup), Val::loopIndex("cta"),
                                                     Val::loopIndex("rank"))
                  : scheduler::indexTileGrid(s.tile_grid, Val::loopIndex("cta"), Val::loopIndex("rank"));
    // The schedule refuses problems of more work units than kernels count in 32 bits
    // (scheduler::kMaxExtent), whatever bound the tile counts' product has.
    // A kernel holding several cluster sizes is printed for the most units, those of tiles alone.
    const int64_t units =
        std::min(cluster_at_launch ? limits.at(sp::kTilesM) * limits.at(sp::kTilesN)
                                   : extentOf(s.tile_grid, s.tile_grid.loop()[0], limits),
                 scheduler::kMaxExtent);
    // Every kernel passes the CTA's rank in its cluster; without clusters it is always 0.
    const int64_t ranks = cluster_at_launch            ? scheduler::kMaxClusterAtLaunch
                          : s.tile_grid.nDims() == 2 ? extentOf(s.tile_grid, s.tile_grid.loop()[1])
                                                     : 1;
    const std::vector<IndexFunctionParam> params = {{"cta", units - 1}, {"rank", ranks - 1}};
    const std::string what =
        ranks > 1 ? "cluster work unit and CTA rank -> output tile: " : "work unit (rank 0: no clusters) -> output tile: ";
    const std::string traversal =
        at_launch ? s.params.grid.withoutGroup(s.params.factorAtLaunch()) : s.params.grid.toString();
    // Kernels count work units and tiles in int: the schedule refuses problems past that. The number
    // of work units (the grid's extent) reaches the kernel in its tg_problem argument.
    out += emitIndexFunction("tg_tile_of", what + traversal + " (tile_grid)", params,
                             {{"tile_m", grid.tile_m, "int"}, {"tile_n", grid.tile_n, "int"}, {"valid", grid.valid}},
                             limits,
                             {{sp::kGridFactor, scheduler::kMaxFactorAtLaunch}, {sp::kClusterM, scheduler::kMaxClusterAtLaunch}});
  }
  out += offsetFunction("tg_smem_a", "A tile in shared memory: " + s.params.smem_a.toString() + " (smem_a)", s.smem_a,
                        {"m", "k", "stage"});
  out += offsetFunction("tg_smem_b", "B tile in shared memory: " + s.params.smem_b.toString() + " (smem_b)", s.smem_b,
                        {"n", "k", "stage"});
  if (s.params.arch == scheduler::Arch::Sm90) {
    // Both orientations of C, overloads on the orientation's tag (tg_c_orientation): kernels holding
    // one call only its own, kernels holding both pick per launch.
    for (const bool transposed : {false, true}) {
      const scheduler::COrientationDomains c = s.cOrientation(transposed);
      const std::string tag = transposed ? "tg_c_orientation<true>" : "tg_c_orientation<false>";
      const std::string how = transposed ? "C stored transposed" : "C stored straight";
      out += offsetFunction("tg_smem_epilogue", "output slab in shared memory, " + how + ": " + c.atom.toString() + " (smem_epilogue)",
                            c.smem_epilogue, {"m", "n", "buffer"}, std::nullopt, tag);
      out += offsetFunction("tg_gmem_c", "C in global memory, " + how + " (gmem_c)", c.gmem_c, {"m", "n"}, limits, tag);
    }
  } else {
    out += offsetFunction("tg_smem_epilogue",
                          "output slab in shared memory: " + s.params.smem_epilogue.toString() + " (smem_epilogue)",
                          s.smem_epilogue, {"m", "n", "buffer"});
    out += offsetFunction("tg_gmem_c", "C in global memory (gmem_c)", s.gmem_c, {"m", "n"}, limits);
  }
  out += offsetFunction("tg_gmem_a", "A in global memory (gmem_a)", s.gmem_a, {"m", "k"}, limits);
  out += offsetFunction("tg_gmem_b", "B in global memory (gmem_b)", s.gmem_b, {"n", "k"}, limits);
  for (const ir::TensorDomain* copy : {&s.copy_a, &s.copy_b}) {
    ir::Indexer indexer(*copy);
    const ir::IndexResult index = indexer.logicalIndex({Val::loopIndex("it"), Val::loopIndex("tid"), Val(0)});
    const int64_t iterations = extentOf(*copy, copy->loop()[0]);
    const int64_t threads = extentOf(*copy, copy->loop()[1]);
    out += emitIndexFunction(copy == &s.copy_a ? "tg_copy_a" : "tg_copy_b",
                             "the piece of the tile thread `tid` copies in iteration `it` (" + copy->name() + ")",
                             {{"it", iterations - 1}, {"tid", threads - 1}},
                             {{"row", index.indices[0]}, {"col", index.indices[1]}, {"valid", index.predicate()}});
  }
  {
    ir::Indexer indexer(s.warp_grid);
    const ir::IndexResult index = indexer.logicalIndex({Val::loopIndex("warp")});
    out += emitIndexFunction("tg_warp_of", "warp -> its tile of the CTA tile (warp_grid)",
                             {{"warp", extentOf(s.warp_grid, s.warp_grid.loop()[0]) - 1}},
                             {{"warp_m", index.indices[0]}, {"warp_n", index.indices[1]}});
  }
  return out;
}

std::string emitGmemIndexFunctions(const scheduler::MatmulSchedule& s) {
  const VarRanges limits = s.shapeLimits();
  return offsetFunction("tg_gmem_a", "A in global memory (gmem_a)", s.gmem_a, {"m", "k"}, limits) +
         offsetFunction("tg_gmem_b", "B in global memory (gmem_b)", s.gmem_b, {"n", "k"}, limits) +
         offsetFunction("tg_gmem_c", "C in global memory (gmem_c)", s.gmem_c, {"m", "n"}, limits);
}

}  // namespace tilegrid::codegen
