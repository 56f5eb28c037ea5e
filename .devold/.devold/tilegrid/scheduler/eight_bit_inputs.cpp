#include "tilegrid/scheduler/eight_bit_inputs.h"

#include <fmt/format.h>

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

namespace {

// A 16-bit tile as plan prints it (MxNxK), read in 8-bit elements: K doubles.
std::string eightBitTile(const std::string& tile) {
  const size_t x = tile.rfind('x');
  TG_INTERNAL_CHECK(x != std::string::npos && x + 1 < tile.size() &&
                    tile.find_first_not_of("0123456789", x + 1) == std::string::npos)
      << "a tile decision's choice \"" << tile << "\" is not MxNxK";
  return tile.substr(0, x + 1) + std::to_string(2 * std::stoll(tile.substr(x + 1)));
}

}  // namespace

BlockScaleRows blockScaleTileRows(const MatmulProblem& problem, const DeviceSpec& device) {
  if (problem.m <= 64) return {64, "block scales: M fits one warpgroup's 64 rows"};
  // A CTA takes its tiles in rounds of a wave (the last counted whole); a tile of `rows` streams
  // `speed` times the rows of a 128-row tile in the time of one.
  const auto modelled = [&](int64_t rows, double speed) {
    const int64_t tiles = ceilDiv(problem.m, rows) * ceilDiv(problem.n, kScaleBlock) * problem.batch;
    return static_cast<double>(ceilDiv(tiles, device.sm_count) * rows) / speed;
  };
  const double two = modelled(128, 1.0), three = modelled(192, kThreeConsumerBlockScaleSpeed);
  const int64_t rows = three < two ? 192 : 128;
  return {rows, fmt::format("blockScaleTileRows: rounds of a wave times rows over speed, 128 rows {:.0f}, 192 rows {:.0f} "
                            "(three consumer warpgroups at {}x)",
                            two, three, kThreeConsumerBlockScaleSpeed)};
}

ScheduleOverrides sixteenBitOverrides(const MatmulProblem& problem, const DeviceSpec& device,
                                      const ScheduleOverrides& overrides) {
  ScheduleOverrides half = overrides;
  if (problem.scale == ScaleMode::Block128) {
    // A K tile is a scale block, and each consumer warpgroup holds a second set of accumulators (a
    // block's partial sum): 64 rows of a 128-column tile, C = A B, cooperative.
    // (The 16-bit K tile: half of the 8-bit one.)
    if (!half.cta_tile) half.cta_tile = TileShape{blockScaleTileRows(problem, device).rows, kScaleBlock, kScaleBlock / 2};
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

void toEightBitInputs(MatmulParams& p, const MatmulProblem& problem, const DeviceSpec& device,
                      const ScheduleOverrides& overrides, DecisionTrace& trace) {
  if (problem.scale == ScaleMode::Block128 && !overrides.cta_tile) {
    // The block-scale tile reached the 16-bit rules as an override; the trace gives its reason.
    for (Decision& d : trace) {
      if (d.what == "tile" && d.rule == "override") d.rule = blockScaleTileRows(problem, device).reason;
    }
  }
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
  // Every tile the trace names, in 8-bit elements (a ranking's pick that an override then replaced
  // keeps its own tile).
  for (Decision& d : trace) {
    if (d.what == "tile") d.choice = eightBitTile(d.choice);
  }
  trace.push_back({"8-bit inputs", "K tile " + std::to_string(p.cta_tile.k),
                   "toEightBitInputs: chosen as the 16-bit problem of K/2 (" + sixteen_bit_tile +
                       "): a K tile of 128 bytes a row moves as many bytes and takes the tensor cores as long",
                   {}});
  // Block scales take shared memory of their own in each stage (MatmulParams::scaleStageFloats),
  // which the 16-bit problem's stage count left out: the ring keeps the stages that still fit. (A
  // stage count given as an override stays, and validate() names what it needs.)
  if (problem.scale == ScaleMode::Block128 && !overrides.stages) {
    const int64_t chosen = p.stages;
    while (p.stages > 2 && p.smemBytes(problem) > device.smem_per_block) --p.stages;
    if (p.stages != chosen) {
      trace.push_back({"stages", std::to_string(p.stages),
                       "toEightBitInputs: block scales take " + std::to_string(4 * p.scaleStageFloats(problem)) +
                           " bytes a stage, so " + std::to_string(chosen) + " stages no longer fit",
                       {}});
    }
  }
}

}  // namespace tilegrid::scheduler
