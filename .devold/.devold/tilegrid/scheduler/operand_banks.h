#pragma once
// Bank-conflict checks of a staged operand tile, on the offsets its allocation domain gives.
#include <cstdint>

#include "tilegrid/ir/tensor_domain.h"
#include "tilegrid/scheduler/smem_atom.h"

namespace tilegrid::scheduler {

struct OperandBankCheck {
  // ldmatrix (x4, or .trans for MN-major): the worst phase over every 8-row group and 16-byte column.
  int64_t ldmatrix_worst_phase = 0;
  // 16-byte cp.async writes, 32 lanes over consecutive 16-byte chunks in row-major order: the worst
  // warp over the tile, in wavefronts (4 is ideal: four 8-lane phases).
  int64_t cp_async_worst_warp = 0;
  bool conflictFree() const { return ldmatrix_worst_phase == 1 && cp_async_worst_warp == 4; }
};

// `tile` is a buildSmemTile() domain; offsets come from its allocation domain through the Indexer.
OperandBankCheck checkOperandTile(const ir::TensorDomain& tile, const SmemAtom& atom);

}  // namespace tilegrid::scheduler
