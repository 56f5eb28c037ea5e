#pragma once
// The order in which CTAs walk the 2-D grid of output tiles, and the tile-grid TensorDomain that
// realises it with IR transforms.
//
//   none           merge(m, n): row-major over tiles (group n: column-major)
//   split-merge    the legacy grid swizzle: split m by f, reorder, merge. It launches
//                  ceilDiv(M, f) * f * N CTAs and predicates off the overhang.
//   swizzle-merge  SwizzleMerge(m, n, factors): the same grouping, exactly M * N CTAs
// `group` names the dimension cut into groups of `factor` tiles (m: bands of f tile rows).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilegrid/ir/tensor_domain.h"
#include "tilegrid/ir/val.h"

namespace tilegrid::scheduler {

enum class GridMethod { None, SplitMerge, SwizzleMerge };
enum class GridGroup { M, N };

struct GridTraversal {
  GridMethod method = GridMethod::SwizzleMerge;
  std::vector<int64_t> factors{1};
  GridGroup group = GridGroup::M;

  // Rejects combinations that make no sense, saying what is allowed.
  void validate() const;
  std::string toString() const;
  // As a kernel that reads the group (and perhaps the factor) at launch describes its traversal:
  // without what it reads.
  std::string withoutGroup(bool factor_too = false) const;
  bool operator==(const GridTraversal&) const = default;
};

const char* toString(GridMethod method);
const char* toString(GridGroup group);
GridMethod parseGridMethod(const std::string& text);
GridGroup parseGridGroup(const std::string& text);

// A [tile_m, tile_n] grid scheduled by `traversal` into one loop axis bound to blockIdx.x. With
// cluster_m > 1, tile_m is first split by the cluster size: the traversal walks cluster tiles and a
// second loop axis, the CTA's rank in its cluster, picks the tile within one (rank-major inner).
// `factor`, where given, stands for the traversal's one factor (a problem parameter read at launch).
ir::TensorDomain buildTileGrid(const ir::Val& tiles_m, const ir::Val& tiles_n, const GridTraversal& traversal,
                               int64_t cluster_m = 1, const std::optional<ir::Val>& factor = std::nullopt);

// Whether a kernel can read `traversal`'s group at launch: one factor of split-merge or
// swizzle-merge (a factor list, or none, is compiled in whole).
bool traversalReadAtLaunch(const GridTraversal& traversal);

// The factors a kernel that reads its traversal at launch holds: the powers of two up to this. Each
// gets its own instance of the tile index with the factor a constant, and the launch picks one: a
// factor held as a variable turns the per-tile divisions by it into divisions by a variable, which
// cost registers and per-tile time (docs/design.md, *Kernels as configurations*). The grid model's
// rarer 32, and any other factor, is compiled in.
inline constexpr int64_t kMaxFactorAtLaunch = 16;
// Whether `traversal`'s factor is one of those (read at launch where the group is).
bool factorHeldAtLaunch(const GridTraversal& traversal);

// The cluster sizes (CTAs along M) a kernel holding several holds: 1 and 2 (MatmulParams::clusterAtLaunch).
// Clusters of 4 are compiled in.
inline constexpr int64_t kMaxClusterAtLaunch = 2;

// The value of the group parameter a kernel that reads its traversal at launch takes (a size like
// every problem parameter, so 1 and 2).
inline constexpr int64_t kGroupParamM = 1, kGroupParamN = 2;

// What a CTA needs to know, printed from the Indexer: its tile and whether that tile exists.
struct TileGridIndex {
  ir::Val cta;     // the loop index the rest is expressed in (blockIdx.x unless given)
  ir::Val rank;    // a clustered grid's second loop index (the CTA's rank in its cluster), else 0
  ir::Val tile_m;
  ir::Val tile_n;
  ir::Val valid;   // `true` unless the traversal overhangs the grid
  ir::Val ctas;    // how many CTAs the traversal launches
};

TileGridIndex indexTileGrid(const ir::TensorDomain& tile_grid, const ir::Val& cta, const ir::Val& rank = ir::Val(0));
TileGridIndex indexTileGrid(const ir::TensorDomain& tile_grid);

// The tile of a traversal by `method` whose factor and group are problem parameters. The launch
// also passes the tile counts along the grouped dimension and the other one (cluster tiles along
// m): one traversal of `factor` over those, its coordinates mapped back to (m, n) by `group`. One
// kernel then walks its tiles in any factor and group. `cluster_m`, a constant or a parameter (a
// kernel holding several cluster sizes), picks the rank's tile within a cluster tile.
TileGridIndex indexTileGridAtLaunch(const ir::Val& tiles_m, const ir::Val& grouped, const ir::Val& other,
                                    GridMethod method, const ir::Val& cluster_m, const ir::Val& factor,
                                    const ir::Val& group, const ir::Val& cta, const ir::Val& rank);

}  // namespace tilegrid::scheduler
