#pragma once
// Row classes: reading an operand whose rows are not 16-byte aligned by TMA, without a copy.
//
// TMA needs a tensor map's base and row stride on 16-byte boundaries; the box's coordinates may be
// anything. Rows r = 8 i + j of a 16-bit operand (any leading dimension) or an 8-bit one (an even
// one) start at (base + j ld e) + i (8 ld e) bytes: for each class j, a 16-byte stride. So the
// runtime encodes one tensor map per class, based at the 16-byte boundary at or before the class's
// first row (`shift` elements before it), and the kernel loads each class's rows of a tile as one box
// whose contiguous coordinate adds the shift. A box of 8 rows is one swizzle atom, so each 64-row
// block of the tile lands as 8 atoms, one per class: the shared-memory tile, laid out as ever, holds
// the tile's rows permuted within every 64-row block, position 8 j + i holding row 8 i + j (the
// permutation is its own inverse).
//
// Where rows run along K (an MN-major operand) both operands must be permuted alike, which leaves
// the product as it is. Where they run along M or N (K-major), the accumulators come out permuted,
// and the epilogue puts each value back where it belongs (tg_acc_row / tg_acc_col).
#include <optional>
#include <string>

#include "tilegrid/ir/tensor_domain.h"
#include "tilegrid/scheduler/params.h"

namespace tilegrid::scheduler {

// Classes of rows, and the rows a block of classes spans (8 atoms of 8 rows).
inline constexpr int64_t kRowClasses = 8;
inline constexpr int64_t kClassBlockRows = 64;
static_assert(kClassBlockRows == kRowClasses * SmemAtom::kRows, "a block of classes is one atom per class");

// The row held at position `position` of a classed tile (and the position of that row).
int64_t classedRow(int64_t position);

// The order in which a tile of `rows` rows lands: logical [row], loop [position]; classed as above,
// or the identity. The Indexer maps a position back to its row (tg_acc_row, tg_acc_col).
ir::TensorDomain buildClassOrder(const std::string& name, int64_t rows, bool classed);

// Why operand 'a' or 'b' of the kernel problem cannot be read in row classes by a kernel of
// `params` (tiles, epilogue slabs and cluster chosen), or nothing where it can. Both operands
// MN-major must be classed together: this says whether each of them can be.
std::optional<std::string> rowClassesRefusal(const MatmulProblem& kernel, const MatmulParams& params, char operand);

// sm_90: reads in row classes every misaligned operand that can be, leaving padded copies for the
// rest (pad_a / pad_b must say which operands are misaligned). Returns the rule's words for the
// decision trace.
std::string chooseRowClasses(const MatmulProblem& kernel, MatmulParams& params);

}  // namespace tilegrid::scheduler
