#include "tilegrid/scheduler/tile_eligibility.h"

#include "tilegrid/scheduler/smem_atom.h"

namespace tilegrid::scheduler {

bool bothOperandsAligned(const MatmulProblem& problem) {
  return problem.align_a * bytes(problem.a_dtype) >= 16 && problem.align_b * bytes(problem.b_dtype) >= 16;
}

bool allRowsAligned(const MatmulProblem& problem) {
  return bothOperandsAligned(problem) && problem.align_c * bytes(problem.out_dtype) >= 16;
}

bool rowsOnSectors(const MatmulProblem& problem) {
  return problem.leadingDimA() * bytes(problem.a_dtype) % 32 == 0 &&
         problem.leadingDimB() * bytes(problem.b_dtype) % 32 == 0;
}

bool widestAtoms(const MatmulProblem& problem, const TileShape& cta) {
  const auto widest = [](Major major, DType dtype, int64_t mn) {
    return major == Major::K || chooseSmemAtom(major, dtype, mn).kind == AtomKind::SW128;
  };
  return widest(majorOfA(problem.layout), problem.a_dtype, cta.m) && widest(majorOfB(problem.layout), problem.b_dtype, cta.n);
}

}  // namespace tilegrid::scheduler
