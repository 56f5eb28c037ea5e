#include "tilegrid/scheduler/operand_banks.h"

#include <algorithm>

#include "tilegrid/ir/check.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/ir/memo.h"
#include "tilegrid/scheduler/bank_model.h"

namespace tilegrid::scheduler {

namespace {

OperandBankCheck checkUncached(const ir::TensorDomain& tile, const SmemAtom& atom) {
  ir::Indexer indexer(tile);
  const auto loop = indexer.defaultLoopIndices();
  const ir::IndexResult alloc = indexer.allocationIndex(loop);
  TG_INTERNAL_CHECK(alloc.indices.size() == 1) << "a staged smem tile allocates one linear axis";
  std::vector<std::string> vars;
  for (const ir::Val& v : loop) vars.push_back(v.name());
  ir::CompiledVal offset(alloc.indices[0], vars);
  const int64_t mn_extent = *tile.iterDomain(tile.logical()[0]).extent.constValue();
  const int64_t k_extent = *tile.iterDomain(tile.logical()[1]).extent.constValue();
  const int64_t elem = bytes(atom.dtype);
  const bool k_major = atom.major == Major::K;
  const int64_t rows = k_major ? mn_extent : k_extent;
  const int64_t cols = k_major ? k_extent : mn_extent;  // along the contiguous mode
  const int64_t chunk_elems = 16 / elem;
  // Byte address of element (row, col) of stage 0 in the atom's row/contiguous terms.
  auto address = [&](int64_t row, int64_t col) {
    const int64_t at[3] = {k_major ? row : col, k_major ? col : row, 0};
    return offset(at) * elem;
  };
  OperandBankCheck check;
  for (int64_t r0 = 0; r0 + 8 <= rows; r0 += 8) {
    for (int64_t c = 0; c + chunk_elems <= cols; c += chunk_elems) {
      std::vector<int64_t> rows_of_matrix;
      for (int64_t r = r0; r < r0 + 8; ++r) rows_of_matrix.push_back(address(r, c));
      check.ldmatrix_worst_phase = std::max(check.ldmatrix_worst_phase, analyzeLdmatrix(rows_of_matrix).wavefronts);
    }
  }
  const int64_t chunks_per_row = cols / chunk_elems;
  const int64_t chunks = rows * chunks_per_row;
  for (int64_t first = 0; first + 32 <= chunks; first += 32) {
    std::vector<std::vector<int64_t>> lanes;
    for (int64_t lane = 0; lane < 32; ++lane) {
      const int64_t chunk = first + lane;
      const int64_t base = address(chunk / chunks_per_row, chunk % chunks_per_row * chunk_elems);
      lanes.push_back({base, base + 4, base + 8, base + 12});
    }
    check.cp_async_worst_warp = std::max(check.cp_async_worst_warp, analyzeBanks(lanes, 16).wavefronts);
  }
  return check;
}

}  // namespace

// The check walks every 16-byte chunk of the tile through the bank model and depends only on the
// tile's domain and atom (ir::Memo).
OperandBankCheck checkOperandTile(const ir::TensorDomain& tile, const SmemAtom& atom) {
  static ir::Memo<OperandBankCheck> checked;
  return checked.get(ir::memoKey(tile, atom), [&] { return checkUncached(tile, atom); });
}

}  // namespace tilegrid::scheduler
