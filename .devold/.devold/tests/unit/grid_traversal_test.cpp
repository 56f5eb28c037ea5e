#include <gtest/gtest.h>

#include "tilegrid/ir/error.h"
#include "tilegrid/scheduler/grid_traversal.h"

namespace tilegrid::scheduler {
namespace {

struct Walk {
  int64_t ctas;
  std::vector<std::tuple<int64_t, int64_t, bool>> tiles;  // per CTA in launch order
};

Walk walk(int64_t m, int64_t n, const GridTraversal& traversal) {
  const ir::TensorDomain grid = buildTileGrid(ir::Val(m), ir::Val(n), traversal);
  const TileGridIndex index = indexTileGrid(grid);
  Walk w{*index.ctas.constValue(), {}};
  const std::vector<std::string> vars{"blockIdx.x"};
  ir::CompiledVal tm(index.tile_m, vars), tn(index.tile_n, vars), valid(index.valid, vars);
  for (int64_t cta = 0; cta < w.ctas; ++cta) {
    const int64_t at[1] = {cta};
    w.tiles.emplace_back(tm(at), tn(at), valid(at) != 0);
  }
  return w;
}

TEST(GridTraversal, LegacySplitMergeOverhangsExactlyWherePredicateIsFalse) {
  for (int64_t m = 1; m <= 24; ++m) {
    for (int64_t n = 1; n <= 12; ++n) {
      for (int64_t f = 1; f <= 9; ++f) {
        for (GridGroup group : {GridGroup::M, GridGroup::N}) {
          const GridTraversal legacy{GridMethod::SplitMerge, {f}, group};
          const Walk w = walk(m, n, legacy);
          const int64_t grouped = group == GridGroup::M ? m : n;
          const int64_t other = group == GridGroup::M ? n : m;
          ASSERT_EQ(w.ctas, (grouped + f - 1) / f * f * other);
          std::vector<int> hits(static_cast<size_t>(m * n), 0);
          int64_t wasted = 0;
          for (const auto& [tm, tn, valid] : w.tiles) {
            const bool inside = tm < m && tn < n;
            ASSERT_EQ(valid, inside) << "M=" << m << " N=" << n << " f=" << f;
            if (valid) {
              ++hits[static_cast<size_t>(tm * n + tn)];
            } else {
              ++wasted;
            }
          }
          ASSERT_EQ(hits, std::vector<int>(static_cast<size_t>(m * n), 1));
          ASSERT_EQ(wasted, w.ctas - m * n);
          if (grouped % f == 0) {
            const Walk swizzled = walk(m, n, {GridMethod::SwizzleMerge, {f}, group});
            ASSERT_EQ(swizzled.tiles, w.tiles) << "equal when divisible: M=" << m << " N=" << n << " f=" << f;
          }
        }
      }
    }
  }
}

TEST(GridTraversal, SwizzleMergeLaunchesExactlyTheTiles) {
  for (int64_t m = 1; m <= 20; ++m) {
    for (int64_t n = 1; n <= 20; ++n) {
      const Walk w = walk(m, n, {GridMethod::SwizzleMerge, {4}, GridGroup::N});
      ASSERT_EQ(w.ctas, m * n);
      std::vector<int> hits(static_cast<size_t>(m * n), 0);
      for (const auto& [tm, tn, valid] : w.tiles) {
        ASSERT_TRUE(valid);
        ++hits[static_cast<size_t>(tm * n + tn)];
      }
      ASSERT_EQ(hits, std::vector<int>(static_cast<size_t>(m * n), 1));
    }
  }
}

TEST(GridTraversal, NoneIsRowMajorAndEqualsFactorOne) {
  const Walk none = walk(3, 4, {GridMethod::None, {1}, GridGroup::M});
  EXPECT_EQ(std::get<0>(none.tiles[5]), 1);
  EXPECT_EQ(std::get<1>(none.tiles[5]), 1);
  EXPECT_EQ(none.tiles, walk(3, 4, {GridMethod::SwizzleMerge, {1}, GridGroup::M}).tiles);
  const Walk column = walk(3, 4, {GridMethod::None, {1}, GridGroup::N});
  EXPECT_EQ(std::get<0>(column.tiles[1]), 1);  // m runs fastest
  EXPECT_EQ(std::get<1>(column.tiles[1]), 0);
}

TEST(GridTraversal, ValidatesAndParses) {
  EXPECT_THROW((GridTraversal{GridMethod::SplitMerge, {4, 2}, GridGroup::M}.validate()), UserError);
  EXPECT_THROW((GridTraversal{GridMethod::None, {4}, GridGroup::M}.validate()), UserError);
  EXPECT_THROW((GridTraversal{GridMethod::SwizzleMerge, {0}, GridGroup::M}.validate()), UserError);
  EXPECT_EQ(parseGridMethod("split-merge"), GridMethod::SplitMerge);
  EXPECT_THROW(parseGridMethod("hilbert"), UserError);
  EXPECT_THROW(parseGridGroup("k"), UserError);
  EXPECT_EQ((GridTraversal{GridMethod::SwizzleMerge, {8, 2}, GridGroup::N}.toString()), "swizzle-merge factors=8,2 group=n");
}

TEST(GridTraversal, PrintsSplitMergePredicate) {
  const ir::TensorDomain grid = buildTileGrid(ir::Val(10), ir::Val(7), {GridMethod::SplitMerge, {4}, GridGroup::M});
  const TileGridIndex index = indexTileGrid(grid);
  EXPECT_EQ(index.tile_m.toString(), "blockIdx.x / 28 * 4 + blockIdx.x % 4");
  EXPECT_EQ(index.tile_n.toString(), "blockIdx.x % 28 / 4");
  EXPECT_EQ(index.valid.toString(), "blockIdx.x / 28 * 4 + blockIdx.x % 4 < 10");
  EXPECT_EQ(index.ctas.constValue(), 84);
}

// A kernel that reads its traversal at launch walks the tiles exactly as the kernel with that factor
// and group compiled in: over every grid of up to 9x9 tiles, clusters of 1 and 2 (compiled in, and
// read at launch), factors 1 to 10 (past the grouped extent too) and both groups, the two indices
// agree for every CTA and rank.
TEST(GridTraversal, FactorAndGroupReadAtLaunchWalkAsCompiledIn) {
  const ir::Val tiles_m = ir::Val::param("tiles_m"), grouped = ir::Val::param("grouped"),
                other = ir::Val::param("other");
  const ir::Val factor = ir::Val::param("grid_factor"), group = ir::Val::param("grid_group");
  const ir::Val cta = ir::Val::loopIndex("cta"), rank = ir::Val::loopIndex("rank");
  for (GridMethod method : {GridMethod::SwizzleMerge, GridMethod::SplitMerge}) {
    for (auto [cluster, param] : {std::pair<int64_t, bool>{1, false}, {2, false}, {1, true}, {2, true}}) {
      const ir::Val cluster_m = param ? ir::Val::param("cluster_m") : ir::Val(cluster);
      const TileGridIndex at_launch =
          indexTileGridAtLaunch(tiles_m, grouped, other, method, cluster_m, factor, group, cta, rank);
      const std::vector<std::string> vars{"tiles_m",    "grouped", "other", "grid_factor",
                                          "grid_group", "cta",     "rank",  "cluster_m"};
      ir::CompiledVal tm(at_launch.tile_m, vars), tn(at_launch.tile_n, vars), valid(at_launch.valid, vars),
          ctas(at_launch.ctas, vars);
      for (int64_t m = 1; m <= 9; ++m) {
        for (int64_t n = 1; n <= 9; ++n) {
          for (int64_t f = 1; f <= 10; ++f) {
            for (GridGroup g : {GridGroup::M, GridGroup::N}) {
              const GridTraversal fixed{method, {f}, g};
              const TileGridIndex compiled = indexTileGrid(buildTileGrid(ir::Val(m), ir::Val(n), fixed, cluster), cta, rank);
              const int64_t g_param = g == GridGroup::N ? kGroupParamN : kGroupParamM;
              const int64_t cm = (m + cluster - 1) / cluster, gv = g == GridGroup::N ? n : cm,
                            ov = g == GridGroup::N ? cm : n;
              const int64_t units = *compiled.ctas.constValue();
              ASSERT_EQ(ctas(std::vector<int64_t>{m, gv, ov, f, g_param, 0, 0, cluster}), units);
              for (int64_t c = 0; c < units; ++c) {
                for (int64_t r = 0; r < cluster; ++r) {
                  const int64_t at[8] = {m, gv, ov, f, g_param, c, r, cluster};
                  const ir::Bindings b{{"cta", c}, {"rank", r}};
                  const std::string where = fixed.toString() + " cluster " + std::to_string(cluster) +
                                            (param ? " (at launch)" : "") + " grid " +
                                            std::to_string(m) + "x" + std::to_string(n) + " cta " +
                                            std::to_string(c) + " rank " + std::to_string(r);
                  ASSERT_EQ(tm(at), ir::evaluate(compiled.tile_m, b)) << where;
                  ASSERT_EQ(tn(at), ir::evaluate(compiled.tile_n, b)) << where;
                  ASSERT_EQ(valid(at), ir::evaluate(compiled.valid, b)) << where;
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tilegrid::scheduler
