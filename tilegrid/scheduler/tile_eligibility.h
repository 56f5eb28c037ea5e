#pragma once
// What a problem's operands allow of a tile shape: alignment, L2 sectors, swizzle atoms. Shared by
// the sm_80 and sm_90 tile heuristics.
#include "tilegrid/scheduler/params.h"

namespace tilegrid::scheduler {

// A and B rows start on 16-byte boundaries: whole 16-byte copies (cp.async, TMA).
bool bothOperandsAligned(const MatmulProblem& problem);

// A, B and C rows start on 16-byte boundaries: TMA loads and stores, no padded copies.
bool allRowsAligned(const MatmulProblem& problem);

// A's and B's rows start on 32-byte L2 sectors; off them, every TMA box row touches one sector more.
bool rowsOnSectors(const MatmulProblem& problem);

// Whether an MN-major operand tile of `cta` gets 128-byte swizzle atoms: a 160-wide M-major B tile
// gets 64-byte ones, whose wgmma reads conflict more (docs/findings.md). A K-major
// tile's atom follows from the tile's k alone (64-byte atoms for 32-wide bf16 k tiles).
bool widestAtoms(const MatmulProblem& problem, const TileShape& cta);

}  // namespace tilegrid::scheduler
