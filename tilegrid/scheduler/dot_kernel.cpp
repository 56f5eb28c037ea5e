#include "tilegrid/scheduler/dot_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/operand_padding.h"
#include "tilegrid/scheduler/params.h"
#include "tilegrid/scheduler/work_split.h"

namespace tilegrid::scheduler {
namespace {

// K elements of operand 'a' or 'b' a thread may read at once: where the operand runs along K, up to
// 16 bytes as its alignment allows; 1 where it runs along M or N.
int64_t kVector(const MatmulProblem& p, char operand) {
  const bool a = operand == 'a';
  if ((a ? majorOfA(p.layout) : majorOfB(p.layout)) != Major::K) return 1;
  const DType type = a ? p.a_dtype : p.b_dtype;
  return std::min(a ? p.align_a : p.align_b, granuleElems(type));
}

// The widest read both operands allow, within kDotMaxFmasPerRead multiply-adds of rows x cols sums.
int64_t widestRead(const MatmulProblem& p, int64_t rows, int64_t cols) {
  const int64_t fmas = std::max<int64_t>(1, kDotMaxFmasPerRead / (rows * cols));
  return std::min({kVector(p, 'a'), kVector(p, 'b'), static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(fmas)))});
}

// Counters a launch keeps in the workspace's flag area, one a batch entry: the area holds two flags
// for each consumer warpgroup of a CTA on every SM (codegen's streamKFlagWords).
int64_t dotCounters(const DeviceSpec& device) { return 2 * device.sm_count * kMaxConsumersSm90; }

}  // namespace

std::string DotParams::toString() const {
  return fmt::format("dot rows {} cols {} threads {} vec {} unroll {}", rows, cols, threads, vec, unroll);
}

std::string DotSplit::toString() const {
  const std::string cut = fmt::format("{} chunk{} of {} K step{}", chunks, chunks == 1 ? "" : "s", chunk_steps,
                                      chunk_steps == 1 ? "" : "s");
  return blocks == 1 ? cut + " a batch entry" : fmt::format("{} blocks a batch entry, {} a block", blocks, cut);
}

int64_t dotBlocks(const MatmulProblem& p, const DotParams& dot) {
  return ceilDiv(p.m, dot.rows) * ceilDiv(p.n, dot.cols);
}

std::string dotRefusal(const MatmulProblem& p, const DotParams& dot, const DeviceSpec& device, bool specialize_shape,
                       bool deterministic) {
  if (std::min(p.m, p.n) > kDotMaxRows) {
    return fmt::format("{}x{} outputs: a dot kernel takes at most {} rows of A or columns of B (a thread keeps a sum "
                       "for every output of its block)",
                       p.m, p.n, kDotMaxRows);
  }
  if (dotBlocks(p, dot) > kDotMaxBlocks) {
    return fmt::format("{}x{} outputs make {} blocks of {}x{}: a launch holds at most {}", p.m, p.n, dotBlocks(p, dot),
                       dot.rows, dot.cols, kDotMaxBlocks);
  }
  if (isFp8(p.a_dtype) || isFp8(p.b_dtype)) return "8-bit inputs run on wgmma (dot kernels read 16-bit inputs)";
  if (specialize_shape) return "the shape is compiled in (dot kernels read it at launch)";
  if (deterministic) return "a fixed order of sums is asked for (dot kernels add them at L2 as CTAs arrive)";
  if (const DotSplit split = planDotSplit(p, dot, device); split.chunks > 1 && p.batch * split.blocks > dotCounters(device)) {
    return fmt::format("{} blocks of outputs cut along K: the workspace counts at most {}", p.batch * split.blocks,
                       dotCounters(device));
  }
  return {};
}

std::string dotLosesBy(const DotParams& dot) {
  if (dot.rows * dot.cols > kDotMaxSums) {
    return fmt::format("{}x{} sums a thread, past the {} where a tiled kernel is slower", dot.rows, dot.cols, kDotMaxSums);
  }
  if (dot.rows + dot.cols > kDotMaxReadsPerK * dot.vec) {
    return fmt::format("{} reads of {} element{} a K element's {} rows, past the {} where a tiled kernel is slower",
                       ceilDiv(dot.rows + dot.cols, dot.vec), dot.vec, dot.vec == 1 ? "" : "s", dot.rows + dot.cols,
                       kDotMaxReadsPerK);
  }
  return {};
}

std::string dotBlocksLoseBy(const MatmulProblem& p, const DotParams& dot, const DeviceSpec& device) {
  const int64_t blocks = dotBlocks(p, dot);
  if (blocks == 1) return {};
  const int64_t wave = device.sm_count * kDotCtasPerSm;
  if (p.batch * blocks > wave) {
    return fmt::format("{} blocks, past one wave of {} CTAs ({} an SM): late blocks leave a tail", p.batch * blocks,
                       wave, kDotCtasPerSm);
  }
  // Blocks run along N where a block holds every row of A, else along M.
  const bool along_n = p.m <= dot.rows;
  const int64_t short_side = along_n ? dot.rows : dot.cols, long_side = along_n ? dot.cols : dot.rows;
  if (short_side * kDotBlockShortShare > long_side) {
    return fmt::format("a {}x{} block reads its {} short-side rows for only {} of the long side", dot.rows, dot.cols,
                       short_side, long_side);
  }
  if (dot.vec < granuleElems(p.a_dtype)) {
    const int64_t read = dot.vec * bytes(p.a_dtype), granule = granuleElems(p.a_dtype) * bytes(p.a_dtype);
    return fmt::format("reads of {} byte{} along K: a blocked kernel streams its rows in {}-byte reads", read,
                       read == 1 ? "" : "s", granule);
  }
  return {};
}

DotParams dotParamsFor(const MatmulProblem& p) {
  const auto ceil2 = [](int64_t v) { return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(v))); };
  DotParams dot;
  if (p.m <= kDotMaxRows && p.n <= kDotMaxCols) {
    dot.rows = ceil2(p.m);
    dot.cols = ceil2(p.n);
  } else if (p.m <= p.n) {
    // Blocks along N: every row of A beside as many columns of B as kDotBlockSums allows.
    dot.rows = ceil2(std::min(p.m, kDotMaxRows));
    dot.cols = std::max<int64_t>(1, kDotBlockSums / dot.rows);
  } else {
    dot.cols = ceil2(std::min(p.n, kDotMaxCols));
    dot.rows = std::max<int64_t>(1, kDotBlockSums / dot.cols);
  }
  dot.threads = kDotThreads;
  dot.vec = widestRead(p, dot.rows, dot.cols);
  // Enough reads a step to keep kDotBytesInFlight bytes outstanding a thread.
  const int64_t step_bytes = (dot.rows + dot.cols) * dot.vec * bytes(p.a_dtype);
  dot.unroll = std::min<int64_t>(kDotMaxUnroll, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(
                                                    ceilDiv(kDotBytesInFlight, step_bytes)))));
  return dot;
}

DotSplit planDotSplit(const MatmulProblem& p, const DotParams& dot, const DeviceSpec& device) {
  TG_INTERNAL_CHECK(dot.kStep() > 0 && p.batch >= 1 && p.k >= 1) << "a dot split of " << dot.toString();
  const int64_t steps = ceilDiv(p.k, dot.kStep());
  DotSplit split;
  split.blocks = dotBlocks(p, dot);
  const int64_t reading = std::max<int64_t>(1, device.sm_count * kDotCtasPerSm / (p.batch * split.blocks));
  split.chunk_steps = ceilDiv(steps, std::min(steps, reading));
  split.chunks = ceilDiv(steps, split.chunk_steps);
  return split;
}

void validateDot(const DotParams& dot, const MatmulProblem& p, const DeviceSpec& device, bool specialize_shape,
                 bool deterministic) {
  const auto pow2 = [](int64_t v, int64_t most) { return v >= 1 && v <= most && std::has_single_bit(static_cast<uint64_t>(v)); };
  TG_USER_CHECK(pow2(dot.rows, kDotMaxRows) && pow2(dot.cols, kDotMaxCols))
      << "dot rows " << dot.rows << " and cols " << dot.cols << " must be powers of two up to " << kDotMaxRows << " and "
      << kDotMaxCols;
  TG_USER_CHECK((p.m <= dot.rows && p.n <= dot.cols) || (p.m <= dot.rows && dot.rows * dot.cols <= kDotBlockSums) ||
                (p.n <= dot.cols && dot.rows * dot.cols <= kDotBlockSums))
      << "the kernel problem's " << p.m << "x" << p.n << " outputs pass the dot kernel's " << dot.rows << "x" << dot.cols
      << ": a block holds every output, or every row of A (or column of B) beside at most " << kDotBlockSums
      << " sums a thread";
  TG_USER_CHECK(dot.threads >= 32 && dot.threads <= 1024 && dot.threads % 32 == 0)
      << "dot threads " << dot.threads << " must be a multiple of 32 up to 1024";
  TG_USER_CHECK(pow2(dot.unroll, kDotMaxUnroll)) << "dot unroll " << dot.unroll << " must be a power of two up to "
                                                 << kDotMaxUnroll;
  const int64_t allowed = std::min(kVector(p, 'a'), kVector(p, 'b'));
  TG_USER_CHECK(pow2(dot.vec, allowed))
      << "dot vec " << dot.vec << ": the operands' layout " << toString(p.layout) << " and alignment allow a power of two up to "
      << allowed << " K elements a read";
  const std::string refusal = dotRefusal(p, dot, device, specialize_shape, deterministic);
  TG_USER_CHECK(refusal.empty()) << "a dot kernel cannot run " << p.toString() << ": " << refusal;
}

}  // namespace tilegrid::scheduler
