#pragma once
// Padded operand copies. An operand whose rows (or pointer) the problem does not promise 16-byte
// aligned can be read through a copy whose rows are padded to whole 128-byte lines, which the runtime makes
// before every launch (tilegrid/runtime/builtin_kernels.h: padRows) and times with it. sm_90 kernels must
// read such operands that way (TMA loads 16-byte aligned rows only); sm_80 kernels may, instead of
// copying in narrower pieces. The copy is the operand's global domain (buildGlobalMatrix) with the
// padded pitch as its leading dimension.
#include <optional>
#include <vector>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

// Elements of `type` in 16 bytes: the widest copy, and the alignment TMA needs of rows.
int64_t granuleElems(DType type);

// The row pitch, in elements, of a padded copy whose rows hold `contiguous` elements of `type`: rounded
// up to whole 128-byte lines, so that each row of a TMA box (one 128-byte swizzle span) or a 16-byte
// copy group starts where a line does and reads the fewest 32-byte sectors.
int64_t paddedPitchElems(DType type, int64_t contiguous);

// Whether operand 'a' or 'b' of `problem` is promised less than 16-byte alignment.
bool operandMisaligned(const MatmulProblem& problem, char operand);

// `problem` as a kernel reading the padded operands sees it: those are 16-byte aligned.
MatmulProblem alignedByPadding(const MatmulProblem& problem, bool pad_a, bool pad_b);

// Padded copies made inside an sm_90 GEMM (MatmulParams::pads_in_kernel) are made in blocks of
// `block_rows` stored rows by `block_bytes` of each row, each with a flag in the workspace's zeroed
// area of kPadFlagWords words (the first counts the warps done with them). A block of 64 rows by 128
// bytes is one swizzle row of a 64-row TMA box: the TMA thread waits for the fewest bytes it needs.
// Larger problems get larger blocks, so that both operands' flags fit the area.
constexpr int64_t kPadFlagWords = 16384;
struct PadBlocks {
  int64_t block_rows = 64, block_bytes = 128;
  int64_t rowBlocks(int64_t rows_per_batch) const { return (rows_per_batch + block_rows - 1) / block_rows; }
  int64_t colBlocks(int64_t row_bytes) const { return (row_bytes + block_bytes - 1) / block_bytes; }
};
struct PadExtent {
  int64_t rows_per_batch, batches, row_bytes;
};
// The blocks of copies of these extents: 64 x 128 bytes, widened along the rows (to whole rows) and
// then made taller until every copy's flags fit the area together; none where even a block per
// batch entry leaves too many (the copies are then made before the launch).
std::optional<PadBlocks> padBlocks(const std::vector<PadExtent>& copies);
int64_t padFlags(const PadBlocks& blocks, const PadExtent& copy);
// The padded copies' extents for `problem` (the kernel's): A's if pad_a, then B's if pad_b.
std::vector<PadExtent> padExtents(const MatmulProblem& problem, bool pad_a, bool pad_b);

// sm_80: whether reading misaligned operand 'a' or 'b' through a padded copy is faster than copying
// it in narrower pieces. The copy reads and writes the operand once (about 4 bytes an element at
// ~3 TB/s); narrower pieces slow the whole GEMM, and the more so the narrower they are.
bool padPaysSm80(const MatmulProblem& problem, char operand);

}  // namespace tilegrid::scheduler
