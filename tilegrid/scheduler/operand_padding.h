#pragma once
// Padded operand copies. An operand whose rows (or pointer) the problem does not promise 16-byte
// aligned can be read through a copy whose rows are padded to 16 bytes, which the runtime makes
// before every launch (tilegrid/runtime/builtin_kernels.h: padRows) and times with it. sm_90 kernels must
// read such operands that way (TMA loads 16-byte aligned rows only); sm_80 kernels may, instead of
// copying in narrower pieces. The copy is the operand's global domain with its contiguous axis split
// by the 16-byte granule (buildGlobalMatrix): the split's overhang is the padding.
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

// Elements of `type` in 16 bytes: the widest copy and the pitch a padded row is rounded up to.
int64_t granuleElems(DType type);

// Whether operand 'a' or 'b' of `problem` is promised less than 16-byte alignment.
bool operandMisaligned(const MatmulProblem& problem, char operand);

// `problem` as a kernel reading the padded operands sees it: those are 16-byte aligned.
MatmulProblem alignedByPadding(const MatmulProblem& problem, bool pad_a, bool pad_b);

// sm_80: whether reading misaligned operand 'a' or 'b' through a padded copy is faster than copying
// it in narrower pieces. The copy reads and writes the operand once (about 4 bytes an element at
// ~3 TB/s); narrower pieces slow the whole GEMM, and the more so the narrower they are.
bool padPaysSm80(const MatmulProblem& problem, char operand);

}  // namespace tilegrid::scheduler
