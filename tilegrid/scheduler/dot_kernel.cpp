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
  return fmt::format("{} chunk{} of {} K step{} a batch entry", chunks, chunks == 1 ? "" : "s", chunk_steps,
                     chunk_steps == 1 ? "" : "s");
}

std::string dotRefusal(const MatmulProblem& p, const DotParams& dot, const DeviceSpec& device, bool specialize_shape,
                       bool deterministic) {
  if (p.m > kDotMaxRows || p.n > kDotMaxCols) {
    return fmt::format("{}x{} outputs: a dot kernel holds at most {}x{} (a thread keeps every output's sum)", p.m, p.n,
                       kDotMaxRows, kDotMaxCols);
  }
  if (isFp8(p.a_dtype) || isFp8(p.b_dtype)) return "8-bit inputs run on wgmma (dot kernels read 16-bit inputs)";
  if (specialize_shape) return "the shape is compiled in (dot kernels read it at launch)";
  if (deterministic) return "a fixed order of sums is asked for (dot kernels add them at L2 as CTAs arrive)";
  if (planDotSplit(p, dot, device).chunks > 1 && p.batch > dotCounters(device)) {
    return fmt::format("{} batch entries cut along K: the workspace counts at most {}", p.batch, dotCounters(device));
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

DotParams dotParamsFor(const MatmulProblem& p) {
  DotParams dot;
  dot.rows = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(p.m)));
  dot.cols = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(p.n)));
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
  const int64_t reading = std::max<int64_t>(1, device.sm_count * kDotCtasPerSm / p.batch);
  DotSplit split;
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
  TG_USER_CHECK(p.m <= dot.rows && p.n <= dot.cols)
      << "the kernel problem's " << p.m << "x" << p.n << " outputs pass the dot kernel's " << dot.rows << "x" << dot.cols;
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
