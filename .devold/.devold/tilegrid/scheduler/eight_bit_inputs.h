#pragma once
// Schedules for 8-bit inputs (e4m3, e5m2), chosen by the 16-bit rules on the problem that moves the
// same bytes.
//
// The model: a K tile is 128 bytes of each operand's rows either way (64 bf16 elements or 128 fp8),
// and wgmma's k32 on 8-bit inputs runs at twice k16's rate on 16-bit ones, so a tile's K tile
// takes the tensor cores as long, moves the same bytes and fills the same shared memory. Every
// model the tile, cluster, stream-K and traversal rules consult (waves, K tiles a unit, DRAM
// traffic, stages) then sees the same figures for an 8-bit problem of K as for the 16-bit problem
// of K / 2 (rounded up, which is the same K tiles). The 16-bit choice is then re-read in 8-bit
// elements: K extents double, the instruction's K becomes 32, the atoms' element type changes
// (their spans in bytes, and so their kinds, stay).
#include <string>

#include "tilegrid/scheduler/heuristics.h"

namespace tilegrid::scheduler {

// Block scales: a K tile is a scale block, and each consumer warpgroup of 64 rows scales its block's
// partial sum into its totals once the block's wgmmas are done, while the other warpgroups' wgmmas
// keep the tensor cores busy. With three warpgroups (192 rows) more of that promotion hides behind
// the others' wgmmas: fitted over 14 problems in docs/results/block_scale_tiles_h100.csv (the
// measured ratios of 192-row to 128-row tiles' speeds against the model below, least squared log
// error), a 192-row tile streams this many times the rows a 128-row tile does in a given time.
inline constexpr double kThreeConsumerBlockScaleSpeed = 1.13;

// The rows of a block-scaled tile and why: 64 where M fits them; else 192 or 128, whichever the
// model gives less time: whole tiles per CTA in rounds of a wave (a wave's worth of CTAs, the last
// round counted whole), times the tile's rows, over its speed.
struct BlockScaleRows {
  int64_t rows;
  std::string reason;
};
BlockScaleRows blockScaleTileRows(const MatmulProblem& problem, const DeviceSpec& device);

// The 16-bit problem moving the same bytes as an 8-bit one: K, the operands' leading dimensions,
// batch strides and alignments halved (rounded up; alignments down), bf16 inputs, no scales (the
// epilogue, which may read them, is kept).
MatmulProblem sixteenBitEquivalent(const MatmulProblem& problem);

// The overrides for the 16-bit problem: a CTA tile's K halved; with block scales, the tile they need
// where none is given (blockScaleTileRows' rows, 128 columns, a K tile a scale block), C = A B,
// cooperative consumers, the width compiled in. Throws UserError where a K cannot be halved (8-bit
// tiles step K by 64: two k32 steps).
ScheduleOverrides sixteenBitOverrides(const MatmulProblem& problem, const DeviceSpec& device,
                                      const ScheduleOverrides& overrides);

// `params`, chosen for sixteenBitEquivalent(problem), re-read for the 8-bit `problem`; the trace's
// tile decisions name the 8-bit tile and a decision says why. With block scales, the stages that fit
// beside their scales on `device` (unless `overrides` set the stages).
void toEightBitInputs(MatmulParams& params, const MatmulProblem& problem, const DeviceSpec& device,
                      const ScheduleOverrides& overrides, DecisionTrace& trace);

}  // namespace tilegrid::scheduler
