#pragma once
// The dot kernel: a GEMM of a few outputs over a long K, run as what it is, M*N dot products. CUDA
// cores, no shared-memory tiles: each thread keeps a sum for every output of its CTA's block and
// reads its own stretch of K from every row of A and column of B; K is cut into chunks, one CTA a
// chunk, so that every SM reads. A CTA adds its sums at L2 (workspace), and the last CTA of a block
// to arrive applies the epilogue and stores C. One launch, where cuBLAS runs a dot kernel and a
// reduction kernel.
//
// A block holds at most rows x cols outputs; a problem with one side of at most kDotMaxRows and the
// other longer (a matrix-vector product: decode's one row of activations against a weight) is cut
// into blocks along the long side, each a CTA streaming its rows of the weight once.
//
// The tiled kernels spend on such a problem what a tile costs to start (barriers, tensor maps, a
// pipeline filled before the first wgmma) for a few rows of a 64-row tile; here a CTA's first loads
// leave as it starts.
#include <cstdint>
#include <string>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

// The most rows of A and columns of B a dot kernel holds: a thread keeps kDotMaxRows * kDotMaxCols
// fp32 sums live beside a K step's loads, within the 255 registers a thread may have.
inline constexpr int64_t kDotMaxRows = 8, kDotMaxCols = 8;
// Threads of a CTA.
inline constexpr int64_t kDotThreads = 128;
// Little's law for the loads: DRAM's bandwidth times its latency (an H100's 3.35 TB/s times about a
// microsecond) must be in flight to read at full speed, about 26 KB an SM. Four CTAs an SM of 128
// threads, each with kDotBytesInFlight bytes of loads outstanding a K step, keep 32 KB in flight.
// More bytes a thread make fewer, longer chunks; docs/results/dot_constants_ab_h200.txt times each
// constant here against a change.
inline constexpr int64_t kDotCtasPerSm = 4;
inline constexpr int64_t kDotBytesInFlight = 64;
// The most loads of one operand row a thread issues together (the step's unroll).
inline constexpr int64_t kDotMaxUnroll = 8;
// The most multiply-adds one read of every row feeds (rows * cols * vec): a K step's code is straight
// line, run once by most CTAs, so its length is fetched cold; wider reads past this buy nothing a
// warp's adjacent narrower reads do not (they are coalesced the same).
inline constexpr int64_t kDotMaxFmasPerRead = 128;

// Where the scheduler picks the dot kernel over the tiled kernel by default. On problems this small a
// tiled kernel's time hardly moves with the problem: its setup, then reads bound by latency. A dot
// kernel's grows with each thread's work a K element: rows * cols multiply-adds and (rows + cols) /
// vec reads. Past kDotMaxSums sums or kDotMaxReadsPerK reads a K element the tiled kernel is as
// fast or faster (docs/results/dot_kernel_h200.csv, held by a test).
inline constexpr int64_t kDotMaxSums = 16, kDotMaxReadsPerK = 8;

// A blocked dot kernel keeps at most this many sums a thread (rows * cols of its block): fewer make
// more, shorter CTAs, whose start and final sums then cost more than their reads
// (docs/results/dot_block_sums_h200.txt). The launch puts its blocks in the grid's third extent,
// which holds at most kDotMaxBlocks.
inline constexpr int64_t kDotBlockSums = 8;
inline constexpr int64_t kDotMaxBlocks = 65535;

// Where the scheduler picks a blocked dot kernel over the tiled kernel by default. Its CTAs stream
// their blocks' rows with nothing to set up, so it wins where every CTA is resident from the start:
// a wave of kDotCtasPerSm CTAs an SM. Past one wave, CTAs that start as others finish leave a tail
// that the persistent tiled kernel does not. Each block reads the short side's rows again from L2 for
// its own rows of the long side; the tiled kernel reads them once a tile, so the block must hold at
// least kDotBlockShortShare rows of the long side for each short-side row (one or two rows of
// activations against eight or four of a weight). docs/results/dot_blocks_h200.csv, held by a test.
inline constexpr int64_t kDotBlockShortShare = 2;

struct DotParams {
  // The M and N of the kernel problem a CTA's block holds (powers of two up to kDotMaxRows and
  // kDotMaxCols); the launch passes the problem's own, cut into blocks where it has more.
  int64_t rows = 0, cols = 0;
  int64_t threads = 0;
  // K elements a thread reads from a row at once: where both operands run along K, up to 16 bytes'
  // worth as their alignment allows and as keeps a read's multiply-adds (rows * cols * vec) within
  // kDotMaxFmasPerRead; else 1 (a warp's threads then read 32 consecutive k).
  int64_t vec = 0;
  // Reads of each row a thread issues before it adds: a K step is threads * vec * unroll elements.
  int64_t unroll = 0;

  int64_t kStep() const { return threads * vec * unroll; }
  std::string toString() const;
  bool operator==(const DotParams&) const = default;
};

// How a launch cuts the problem: `blocks` blocks of outputs a batch entry, and K into `chunks` CTAs
// a block, each taking `chunk_steps` K steps (the last chunk fewer).
struct DotSplit {
  int64_t blocks = 0, chunks = 0, chunk_steps = 0;
  std::string toString() const;
};

// Blocks of dot.rows x dot.cols outputs covering `problem`'s M x N.
int64_t dotBlocks(const MatmulProblem& problem, const DotParams& dot);

// Why `problem` (the kernel problem: swap_ab applied) cannot run as the dot kernel `dot`, or empty
// where it can. `specialize_shape`, `deterministic`: the schedule's (dot kernels read their shape at
// launch and add their sums in the order CTAs arrive).
std::string dotRefusal(const MatmulProblem& problem, const DotParams& dot, const DeviceSpec& device,
                       bool specialize_shape, bool deterministic);

// The dot kernel for `problem` (which dotRefusal accepts).
DotParams dotParamsFor(const MatmulProblem& problem);

// Whether `dot` is within the work a K element where the dot kernel beats the tiled one
// (kDotMaxSums, kDotMaxReadsPerK); empty, or why not.
std::string dotLosesBy(const DotParams& dot);

// Whether a problem cut into blocks (dotBlocks > 1) is where the blocked dot kernel beats the tiled
// one: one wave of blocks, a short side of at most a block's long side / kDotBlockShortShare, 16-byte
// reads along K; empty, or why not.
std::string dotBlocksLoseBy(const MatmulProblem& problem, const DotParams& dot, const DeviceSpec& device);

// K cut over the device: chunks of whole K steps, as many as keep kDotCtasPerSm CTAs an SM
// reading (over every block of every batch entry), and no more than K has steps.
DotSplit planDotSplit(const MatmulProblem& problem, const DotParams& dot, const DeviceSpec& device);

// Throws UserError where `dot` cannot run `problem` (the kernel problem): sizes past its rows or
// columns, fields out of range, a vector its operands' alignment does not allow, or what dotRefusal
// refuses.
void validateDot(const DotParams& dot, const MatmulProblem& problem, const DeviceSpec& device, bool specialize_shape,
                 bool deterministic);

}  // namespace tilegrid::scheduler
