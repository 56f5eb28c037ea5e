#pragma once
// Padded operand copies. An operand whose rows (or pointer) the problem does not promise 16-byte
// aligned can be read through a copy whose rows are padded (paddedPitchElems), which the runtime makes
// before every launch (tilegrid/runtime/builtin_kernels.h: padRows) and times with it. sm_90 kernels must
// read such operands that way (TMA loads 16-byte aligned rows only); sm_80 kernels may, instead of
// copying in narrower pieces. The copy is the operand's global domain (buildGlobalMatrix) with the
// padded pitch as its leading dimension.
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

// Elements of `type` in 16 bytes: the widest copy, and the alignment TMA needs of rows.
int64_t granuleElems(DType type);

// The row pitch, in elements, of a padded copy whose rows hold `contiguous` elements of `type`: no row
// straddles a 128-byte line, and none is padded more than it must be. Rows over half a line round up
// to whole lines, so that each row of a TMA box (one 128-byte swizzle span) or a 16-byte copy group
// starts where a line does and reads the fewest 32-byte sectors. Shorter rows take the smallest
// power of two of 16 bytes or more that holds them (16, 32 or 64), several rows to a line: padding a
// row of a few elements to a whole line would multiply the bytes the copy writes and the GEMM
// reads by up to 64 (a 2-byte row), where reading the same lines for the rows beside costs nothing.
int64_t paddedPitchElems(DType type, int64_t contiguous);

// Whether operand 'a' or 'b' of `problem` is promised less than 16-byte alignment.
bool operandMisaligned(const MatmulProblem& problem, char operand);

// `problem` as a kernel reading the padded operands sees it: those are 16-byte aligned.
MatmulProblem alignedByPadding(const MatmulProblem& problem, bool pad_a, bool pad_b);

// `problem` as an sm_90 kernel reads it: every misaligned operand through its padded copy, with the
// copy's pitch (paddedPitchElems) and batch entries back to back. The tile rules weigh that.
MatmulProblem readThroughPadding(const MatmulProblem& problem);

// sm_80: whether reading misaligned operand 'a' or 'b' through a padded copy is faster than copying
// it in narrower pieces. The copy reads and writes the operand once (about 4 bytes an element at
// ~3 TB/s); narrower pieces slow the whole GEMM, and the more so the narrower they are.
bool padPaysSm80(const MatmulProblem& problem, char operand);

}  // namespace tilegrid::scheduler
