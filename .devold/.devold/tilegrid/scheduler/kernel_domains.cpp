#include "tilegrid/scheduler/kernel_domains.h"

#include "tilegrid/ir/check.h"

namespace tilegrid::scheduler {

ir::TensorDomain buildGlobalMatrix(const std::string& name, const ir::AxisSpec& outer, const ir::AxisSpec& inner,
                                   Major major, const ir::Val& ld) {
  const ir::Val& contiguous = major == Major::K ? inner.extent : outer.extent;
  const auto ld_value = ld.constValue(), contiguous_value = contiguous.constValue();
  TG_USER_CHECK(!ld_value || !contiguous_value || *ld_value >= *contiguous_value)
      << name << ": rows " << ld.toString() << " elements apart overlap their " << contiguous.toString()
      << " contiguous elements";
  ir::TensorDomain matrix(name, {outer, inner});
  if (major == Major::MN) {
    matrix.reorder({{0, 1}});
    matrix.setAllocationDomain(matrix.loop());
    matrix.setLoopDomain(matrix.logical());
  }
  matrix.setAllocationStrides({ld, ir::Val(1)});
  return matrix;
}

ir::TensorDomain buildTileCopy(const std::string& name, int64_t rows, int64_t cols, int64_t vec, int64_t threads) {
  TG_USER_CHECK(vec >= 1 && cols % vec == 0) << name << ": vector width " << vec << " must divide the " << cols
                                             << " contiguous elements of a tile row";
  TG_USER_CHECK(threads >= 1) << name << ": needs at least one thread";
  ir::TensorDomain copy(name, {{"row", ir::Val(rows)}, {"col", ir::Val(cols)}});
  copy.merge(0, 1).split(0, ir::Val(vec)).split(0, ir::Val(threads));
  copy.parallelize(1, ir::ParallelType::TIDx).parallelize(2, ir::ParallelType::Vectorize);
  return copy;
}

ir::TensorDomain buildWarpGrid(int64_t warps_m, int64_t warps_n) {
  ir::TensorDomain grid("warp_grid", {{"warp_m", ir::Val(warps_m)}, {"warp_n", ir::Val(warps_n)}});
  grid.merge(0, 1);
  return grid;
}

}  // namespace tilegrid::scheduler
