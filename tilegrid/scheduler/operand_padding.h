#pragma once
// Padded operand copies. An operand whose rows (or pointer) the problem does not promise 16-byte
// aligned can be read through a copy whose rows are padded to whole 128-byte lines, which the runtime makes
// before every launch (tilegrid/runtime/builtin_kernels.h: padRows) and times with it. sm_90 kernels must
// read such operands that way (TMA loads 16-byte aligned rows only); sm_80 kernels may, instead of
// copying in narrower pieces. The copy is the operand's global domain (buildGlobalMatrix) with the
// padded pitch as its leading dimension.
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

// Padded copies made inside an sm_90 GEMM (MatmulParams::pads_in_kernel) are made in blocks
// kPadBlockK elements deep along K, as the main loop consumes K, and across K 64 stored rows of a
// K-major operand or 128 bytes of an MN-major one's rows (one swizzle row of a TMA box). The kernel
// copies them K block by K block, the order in which every wave's main loop first needs them, and
// counts the blocks copied of each K block in the workspace's zeroed area of kPadCountWords words
// (the first counts the warps done with them); the TMA thread waits on those counts.
constexpr int64_t kPadCountWords = 16384;
constexpr int64_t kPadBlockK = 64;
struct PadExtent {
  bool k_major;  // rows run along M or N (and K along each row), or along K
  int64_t rows_per_batch, row_bytes, elem_bytes, batches;
  int64_t k() const { return k_major ? row_bytes / elem_bytes : rows_per_batch; }
};
struct PadBlocks {
  static constexpr int64_t kRows = 64, kBytes = 128;  // across K: rows of a K-major copy, bytes of an MN-major one's
  static int64_t acrossK(const PadExtent& c) {
    return c.k_major ? (c.rows_per_batch + kRows - 1) / kRows : (c.row_bytes + kBytes - 1) / kBytes;
  }
};
// The K blocks of copies of these extents (of one K).
int64_t padKBlocks(const std::vector<PadExtent>& copies);
// Whether the kernel can count the K blocks of these copies in its area.
bool padCountsFit(const std::vector<PadExtent>& copies);
// The padded copies' extents for `problem` (the kernel's): A's if pad_a, then B's if pad_b.
std::vector<PadExtent> padExtents(const MatmulProblem& problem, bool pad_a, bool pad_b);

// sm_80: whether reading misaligned operand 'a' or 'b' through a padded copy is faster than copying
// it in narrower pieces. The copy reads and writes the operand once (about 4 bytes an element at
// ~3 TB/s); narrower pieces slow the whole GEMM, and the more so the narrower they are.
bool padPaysSm80(const MatmulProblem& problem, char operand);

}  // namespace tilegrid::scheduler
