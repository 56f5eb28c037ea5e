#include "tilegrid/scheduler/eight_bit_inputs.h"

#include "tilegrid/ir/check.h"

namespace tilegrid::scheduler {

MatmulProblem sixteenBitEquivalent(const MatmulProblem& problem) {
  TG_INTERNAL_CHECK(isFp8(problem.a_dtype) && isFp8(problem.b_dtype) && problem.layout == Layout::TN)
      << "the 16-bit equivalent of " << problem.toString() << ": validate() admits 8-bit inputs K-major only";
  MatmulProblem half = problem;
  half.a_dtype = half.b_dtype = DType::BF16;
  half.scale = ScaleMode::None;
  half.k = ceilDiv(problem.k, 2);
  // A K-major operand's rows are K long: its leading dimension and batch stride count the same bytes
  // as halves, and a batch entry still holds its rows whole.
  const auto operand = [&](int64_t& ld, int64_t& stride, int64_t& align, int64_t rows) {
    ld = ld ? ceilDiv(ld, 2) : 0;
    if (stride) stride = std::max(ceilDiv(stride, 2), (ld ? ld : half.k) * rows);
    if (align) align = std::max<int64_t>(1, align / 2);
  };
  operand(half.lda, half.stride_a, half.align_a, problem.m);
  operand(half.ldb, half.stride_b, half.align_b, problem.n);
  return half;
}

ScheduleOverrides sixteenBitOverrides(const MatmulProblem& problem, const ScheduleOverrides& overrides) {
  ScheduleOverrides half = overrides;
  if (problem.scale == ScaleMode::Block128) {
    // A K tile is a scale block, and each consumer warpgroup holds a second set of accumulators (a
    // block's partial sum): 64 rows of a 128-column tile (or less where M is), C = A B, cooperative.
    const int64_t rows = problem.m <= 64 ? 64 : 128;
    // (The 16-bit K tile: half of the 8-bit one.)
    if (!half.cta_tile) half.cta_tile = TileShape{rows, kScaleBlock, kScaleBlock / 2};
    if (!half.swap_ab) half.swap_ab = false;
    if (!half.pingpong) half.pingpong = false;
    if (!half.width_at_launch) half.width_at_launch = false;
  }
  if (overrides.cta_tile) {
    TG_USER_CHECK(overrides.cta_tile->k >= 64 && overrides.cta_tile->k % 64 == 0)
        << "cta tile " << overrides.cta_tile->toString()
        << ": with 8-bit inputs k must be a multiple of 64 (two wgmma k32 steps)";
    half.cta_tile->k /= 2;
  }
  return half;
}

void toEightBitInputs(MatmulParams& p, const MatmulProblem& problem, DecisionTrace& trace) {
  if (problem.scale == ScaleMode::Block128 && p.cta_tile.m == 128 && p.warp_tile.m == 128) {
    // The tile override left the warpgroup tile to the scheduler; block scales take 64 rows a warpgroup.
    p.warp_tile.m = 64;
  }
  const std::string sixteen_bit_tile = p.cta_tile.toString();
  p.cta_tile.k *= 2;
  p.warp_tile.k *= 2;
  if (p.arch == Arch::Sm90) p.instruction_tile.k = problem.instructionK();
  // The kernel problem's operands (A and B trade places computing C^T).
  p.smem_a.dtype = p.swap_ab ? problem.b_dtype : problem.a_dtype;
  p.smem_b.dtype = p.swap_ab ? problem.a_dtype : problem.b_dtype;
  p.vec_a *= 2;
  p.vec_b *= 2;
  for (Decision& d : trace) {
    if (d.what == "tile") d.choice = p.cta_tile.toString();
  }
  trace.push_back({"8-bit inputs", "K tile " + std::to_string(p.cta_tile.k),
                   "toEightBitInputs: chosen as the 16-bit problem of K/2 (" + sixteen_bit_tile +
                       "): a K tile of 128 bytes a row moves as many bytes and takes the tensor cores as long",
                   {}});
}

}  // namespace tilegrid::scheduler
