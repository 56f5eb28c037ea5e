#include "tilegrid/scheduler/grid_traversal.h"

#include "tilegrid/ir/enum_names.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/ir/swizzle_merge.h"
#include "tilegrid/ir/val.h"

namespace tilegrid::scheduler {

void GridTraversal::validate() const {
  ir::validateSwizzleFactors(factors);
  if (method == GridMethod::SplitMerge) {
    TG_USER_CHECK(factors.size() == 1) << "the split-merge traversal takes exactly one factor, got "
                                       << factors.size() << " (factor lists need swizzle-merge)";
  }
  if (method == GridMethod::None) {
    TG_USER_CHECK(factors.size() == 1 && factors[0] == 1)
        << "the 'none' traversal takes no factor (got " << toString()
        << "); use split-merge or swizzle-merge to group tiles";
  }
}

std::string GridTraversal::toString() const {
  std::string text = std::string(scheduler::toString(method)) + " factors=";
  for (size_t i = 0; i < factors.size(); ++i) text += (i ? "," : "") + std::to_string(factors[i]);
  return text + " group=" + scheduler::toString(group);
}

std::string GridTraversal::withoutGroup(bool factor_too) const {
  if (factor_too) return std::string(scheduler::toString(method)) + ", factor and group read at launch";
  const std::string text = toString();
  return text.substr(0, text.rfind(" group=")) + ", group read at launch";
}

const char* toString(GridMethod method) {
  switch (method) {
    case GridMethod::None: return "none";
    case GridMethod::SplitMerge: return "split-merge";
    case GridMethod::SwizzleMerge: return "swizzle-merge";
  }
  return "?";
}

const char* toString(GridGroup group) { return group == GridGroup::M ? "m" : "n"; }

GridMethod parseGridMethod(const std::string& text) {
  return parseEnum(text, {GridMethod::None, GridMethod::SplitMerge, GridMethod::SwizzleMerge},
                   [](GridMethod m) { return toString(m); }, "grid method");
}

GridGroup parseGridGroup(const std::string& text) {
  if (text == "m" || text == "M") return GridGroup::M;
  if (text == "n" || text == "N") return GridGroup::N;
  TG_USER_ERROR() << "unknown grid group '" << text << "': expected m or n";
  return GridGroup::M;
}

bool traversalReadAtLaunch(const GridTraversal& traversal) {
  return traversal.method != GridMethod::None && traversal.factors.size() == 1;
}

bool factorHeldAtLaunch(const GridTraversal& traversal) {
  if (!traversalReadAtLaunch(traversal)) return false;
  const int64_t f = traversal.factors[0];
  return f >= 1 && f <= kMaxFactorAtLaunch && (f & (f - 1)) == 0;
}

ir::TensorDomain buildTileGrid(const ir::Val& tiles_m, const ir::Val& tiles_n, const GridTraversal& traversal,
                               int64_t cluster_m, const std::optional<ir::Val>& factor) {
  traversal.validate();
  TG_INTERNAL_CHECK(!factor || traversalReadAtLaunch(traversal))
      << "bug: a factor read at launch for the traversal " << traversal.toString();
  const ir::Val first = factor.value_or(ir::Val(traversal.factors[0]));
  TG_USER_CHECK(cluster_m >= 1) << "cluster size along m must be at least 1, got " << cluster_m;
  ir::TensorDomain grid("tile_grid", {{"tile_m", tiles_m}, {"tile_n", tiles_n}});
  // [tile_m, tile_n] -> [tile_m / c, c, tile_n] -> [tile_m / c, tile_n, c]: the traversal below sees
  // cluster tiles on axes 0 and 1 and leaves the rank axis last.
  if (cluster_m > 1) {
    grid.split(0, ir::Val(cluster_m));
    grid.reorder({{1, 2}});
  }
  // Put the grouped dimension first; everything below then groups axis 0.
  if (traversal.group == GridGroup::N) grid.reorder({{0, 1}});
  switch (traversal.method) {
    case GridMethod::None:
      grid.merge(0, 1);
      break;
    case GridMethod::SplitMerge:
      // [g, o] -> [g/f, f, o] -> [g/f, o, f] -> [g/f, o*f] -> [g/f * o*f]
      grid.split(0, first);
      grid.reorder({{1, 2}});
      grid.merge(1, 2);
      grid.merge(0, 1);
      break;
    case GridMethod::SwizzleMerge:
      grid.swizzleMerge(0, 1, factor ? std::vector<ir::Val>{first} : ir::constantFactors(traversal.factors));
      break;
  }
  grid.parallelize(0, ir::ParallelType::BIDx);
  return grid;
}

TileGridIndex indexTileGrid(const ir::TensorDomain& tile_grid, const ir::Val& cta, const ir::Val& rank) {
  TG_USER_CHECK((tile_grid.nDims() == 1 || tile_grid.nDims() == 2) && tile_grid.logical().size() == 2)
      << "a tile grid has two logical axes (tile_m, tile_n) scheduled into one loop axis (and a cluster rank "
         "axis); '"
      << tile_grid.name() << "' has " << tile_grid.logical().size() << " and " << tile_grid.nDims();
  ir::Indexer indexer(tile_grid);
  const std::vector<ir::Val> loop = tile_grid.nDims() == 1 ? std::vector<ir::Val>{cta} : std::vector<ir::Val>{cta, rank};
  ir::IndexResult logical = indexer.logicalIndex(loop);
  return TileGridIndex{cta, tile_grid.nDims() == 2 ? rank : ir::Val(0), logical.indices[0], logical.indices[1],
                       logical.predicate(), tile_grid.axis(0).extent};
}

TileGridIndex indexTileGridAtLaunch(const ir::Val& tiles_m, const ir::Val& grouped, const ir::Val& other,
                                    GridMethod method, const ir::Val& cluster_m, const ir::Val& factor,
                                    const ir::Val& group, const ir::Val& cta, const ir::Val& rank) {
  // Grouping n is grouping m of the transposed grid: one traversal over the (grouped, other)
  // extents the launch passes, its coordinates handed back to (m, n) by the group. The traversal
  // walks cluster tiles along m; the rank then picks the CTA's tile within one.
  const ir::Val n_grouped = ir::eq(group, ir::Val(kGroupParamN));
  const TileGridIndex walked =
      indexTileGrid(buildTileGrid(grouped, other, GridTraversal{method, {1}, GridGroup::M}, 1, factor), cta, ir::Val(0));
  const ir::Val cluster_tile_m = ir::select(n_grouped, walked.tile_n, walked.tile_m);
  const bool alone = cluster_m.constValue() == 1;
  const ir::Val tile_m = alone ? cluster_tile_m : cluster_tile_m * cluster_m + rank;
  // A cluster tile's last CTAs lie past the grid where the cluster does not divide tiles_m.
  const ir::Val valid = alone ? walked.valid : ir::logicalAnd(walked.valid, tile_m < tiles_m);
  return TileGridIndex{cta, alone ? ir::Val(0) : rank, tile_m,
                       ir::select(n_grouped, walked.tile_m, walked.tile_n), valid, walked.ctas};
}

TileGridIndex indexTileGrid(const ir::TensorDomain& tile_grid) {
  return indexTileGrid(tile_grid, ir::Indexer(tile_grid).defaultLoopIndices().at(0));
}

}  // namespace tilegrid::scheduler
