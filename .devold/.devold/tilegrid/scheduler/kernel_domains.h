#pragma once
// The TensorDomains a GEMM kernel indexes besides the tile grid and the shared-memory tiles: the
// operands in global memory, how a CTA's threads share the copy of a tile, and how warps tile the
// CTA tile. Codegen prints every index from these through the Indexer.
#include <cstdint>
#include <string>

#include "tilegrid/ir/tensor_domain.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

// A global matrix with logical domain [outer, inner] (e.g. [m, k]) stored with `major` contiguous:
// K-major stores [outer, inner] by rows, MN-major stores [inner, outer]. Its stored rows lie `ld`
// elements apart (the leading dimension, at least the contiguous extent: larger for a sub-matrix
// or a copy with padded rows), given to the allocation domain as strides [ld, 1]. Its allocation
// domain linearised is the element offset from the matrix base.
ir::TensorDomain buildGlobalMatrix(const std::string& name, const ir::AxisSpec& outer, const ir::AxisSpec& inner,
                                   Major major, const ir::Val& ld);

// A rows x cols tile copied by `threads` threads in pieces of `vec` contiguous elements along cols:
// [rows, cols] -> merge -> split by vec -> split by threads = loop [iteration, thread, vec], with
// the thread axis bound to threadIdx.x. Pieces past the tile (when threads do not divide them) are
// cut off by the split's predicate.
ir::TensorDomain buildTileCopy(const std::string& name, int64_t rows, int64_t cols, int64_t vec, int64_t threads);

// A warps_m x warps_n grid of warp tiles, merged row-major into one axis: the warp index.
ir::TensorDomain buildWarpGrid(int64_t warps_m, int64_t warps_n);

}  // namespace tilegrid::scheduler
