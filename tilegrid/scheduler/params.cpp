#include "tilegrid/scheduler/params.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tilegrid/ir/enum_names.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/operand_padding.h"

namespace tilegrid::scheduler {

std::string TileShape::toString() const { return fmt::format("{}x{}x{}", m, n, k); }

const char* toString(MmaOrder order) { return order == MmaOrder::Rows ? "rows" : "columns"; }

MmaOrder parseMmaOrder(const std::string& text) {
  return parseEnum(text, {MmaOrder::Rows, MmaOrder::Columns}, [](MmaOrder o) { return toString(o); }, "mma order");
}

int64_t MatmulParams::mathGroups() const {
  if (warp_tile.m <= 0 || warp_tile.n <= 0) return 0;
  if (pingpong) return kPingPongConsumers;
  return (cta_tile.m / warp_tile.m) * (cta_tile.n / warp_tile.n);
}

int64_t MatmulParams::threadsPerCta() const {
  // sm_90 adds one producer warpgroup that issues the TMA loads.
  return arch == Arch::Sm80 ? 32 * mathGroups() : 128 * (mathGroups() + 1);
}

RegisterSplit MatmulParams::sm90Registers() const {
  // setmaxnreg counts in multiples of 8 and allows 24 to 256; ptxas gives a kernel built for
  // `threads` at most 255 registers and a multiple of 8 of the 64K register file's share.
  const int64_t threads = threadsPerCta();
  const int64_t at_launch = std::min<int64_t>(248, 65536 / threads / 8 * 8);
  const int64_t consumers = mathGroups();
  RegisterSplit split;
  // The producer's one thread issues every TMA box of a stage from unrolled code: at 40 registers
  // ptxas spilled once a stage took 27 boxes (128x200, M-major B in 8-column atoms).
  split.producer = 56;
  split.consumer = std::min<int64_t>(240, ((consumers + 1) * at_launch - split.producer) / consumers / 8 * 8);
  split.compiled = at_launch;
  return split;
}

namespace {
// Registers one wgmma needs beside its accumulators, within the launch share: an m64n224 needs 138
// for its 112 (ptxas's "Insufficient registers" message); 32 keeps room for the code around it.
constexpr int64_t kSm90InstructionMargin = 32;
}  // namespace

int64_t MatmulParams::sm90RegisterMargin() const {
  // Two blocks of accumulators need more beside them: 256x152 (152 a thread of 224) compiles without
  // spills in every epilogue (computing C or C^T, bf16 or fp32 out, TMA or direct stores); 256x160
  // spilled 4-80 bytes computing C^T, 256x176 up to 120 in every variant.
  return warp_tile.m > 64 ? 72 : 32;
}

bool MatmulParams::sm90AccumulatorsFit() const {
  const RegisterSplit split = sm90Registers();
  // A kernel holding several widths holds the widest's accumulators.
  const int64_t widest = compiledTile().n;
  return warp_tile.m * std::max(widest, warp_tile.n) / 128 + sm90RegisterMargin() <= split.consumer &&
         std::max(widest, instruction_tile.n) / 2 + kSm90InstructionMargin <= split.compiled;
}

bool MatmulParams::storesCBothWays() const {
  return arch == Arch::Sm90 && !launch_choices_compiled && mathGroups() <= kMaxConsumersForBothCStores &&
         warp_tile.m * compiledTile().n / 128 <= kMaxAccumulatorsForBothCStores;
}

bool MatmulParams::clusterAtLaunch() const {
  return arch == Arch::Sm90 && !launch_choices_compiled && groupAtLaunch() && grid.method != GridMethod::SplitMerge && !width_at_launch &&
         cluster.n == 1 && cluster.m <= kMaxClusterAtLaunch && storesCBothWays();
}

bool MatmulParams::cOrientationAtLaunch(const MatmulProblem& problem) const {
  return arch == Arch::Sm90 && !launch_choices_compiled && shapeAtLaunch() && !width_at_launch && majorOfA(problem.layout) == majorOfB(problem.layout) &&
         bytes(problem.out_dtype) == 2 && warp_tile.m * compiledTile().n / 128 <= kMaxAccumulatorsForBothCStores;
}

SmemAtom epilogueAtom(DType out, int64_t slab_n, bool transposed) {
  return transposed ? chooseSmemAtom(Major::MN, out, 64) : chooseSmemAtom(Major::K, out, slab_n);
}

bool MatmulParams::stagedEpilogue(const MatmulProblem& problem) const {
  if (arch == Arch::Sm90) return true;
  const int64_t row_chunks = warp_tile.n * bytes(problem.out_dtype) / 16;
  return stage_epilogue && problem.rowsOfCAreWhole16Bytes() && row_chunks >= 2 && 32 % row_chunks == 0;
}

bool auxFitsSlab(const MatmulProblem& problem) {
  return problem.hasAux() && bytes(problem.aux_dtype.value_or(problem.out_dtype)) == 2 && bytes(problem.out_dtype) == 2 &&
         problem.rowsOfCAreWhole16Bytes();
}

bool MatmulParams::straightStmatrixSlabs() const {
  return arch == Arch::Sm90 && !swap_ab && epilogue_tile.n % 16 == 0 && epilogue_tile.m % 16 == 0;
}

bool MatmulParams::auxSlab(const MatmulProblem& problem) const { return straightStmatrixSlabs() && auxFitsSlab(problem); }

bool cFitsSlab(const MatmulProblem& problem) {
  return problem.epilogueUses(ir::EpOp::C) && !problem.epilogueUses(ir::EpOp::Residual) &&
         bytes(problem.c_in_dtype.value_or(problem.out_dtype)) == 2 && bytes(problem.out_dtype) == 2 &&
         problem.rowsOfCAreWhole16Bytes() && !auxFitsSlab(problem);
}

bool MatmulParams::cSlab(const MatmulProblem& problem) const {
  return straightStmatrixSlabs() && !width_at_launch && cFitsSlab(problem);
}

int64_t MatmulParams::epilogueSlabPairs(const MatmulProblem& problem) const {
  return 1 + (auxSlab(problem) ? 1 : 0) + (cSlab(problem) ? 1 : 0);
}

int64_t MatmulParams::slabPairBytes(const MatmulProblem& problem) const {
  return 2 * epilogue_tile.m * epilogue_tile.n * bytes(problem.out_dtype);
}

int64_t MatmulParams::cSlabBarrierBytes() const { return 8 * 2 * mathGroups(); }

int64_t MatmulParams::ctasPerSm(const MatmulProblem& problem, const DeviceSpec& device) const {
  if (arch == Arch::Sm90) return 1;
  const int64_t threads = threadsPerCta();
  const int64_t by_smem = device.smem_per_block / std::max<int64_t>(1, smemBytes(problem));
  const int64_t by_registers = 65536 / (threads * 256);
  const int64_t by_threads = 2048 / threads;
  return std::max<int64_t>(1, std::min({by_smem, by_registers, by_threads}));
}

int64_t MatmulParams::smemBytes(const MatmulProblem& problem) const {
  const int64_t a = cta_tile.m * cta_tile.k * bytes(problem.a_dtype);
  const int64_t b = compiledTile().n * cta_tile.k * bytes(problem.b_dtype);
  // sm_90 double-buffers the epilogue slab: one is written while the TMA store of the other drains,
  // and an auxiliary output stored by TMA and an input c loaded by TMA have two buffers of their own
  // (epilogueSlabPairs). Both families keep the staging area apart from the operand stages, so a
  // persistent CTA can store one tile while the next tile's loads are in flight.
  const int64_t epilogue = !stagedEpilogue(problem)   ? 0
                           : arch == Arch::Sm80 ? epilogue_tile.m * epilogue_tile.n * bytes(problem.out_dtype)
                                                : slabPairBytes(problem) * epilogueSlabPairs(problem);
  const int64_t c_barriers = cSlab(problem) ? cSlabBarrierBytes() : 0;
  // sm_90: a full and an empty mbarrier (8 bytes each) per stage, and the tile of the unit whose
  // first K tile the stage holds (two ints), which the producer hands the consumers. Both families
  // keep 1024 bytes to align the dynamic buffer by hand, which 128B swizzled tiles need.
  const int64_t barriers = arch == Arch::Sm90 ? 24 * stages : 0;
  return stages * (a + b + 4 * scaleStageFloats(problem)) + epilogue + barriers + c_barriers + 1024;
}

int64_t MatmulParams::scaleStageFloats(const MatmulProblem& problem) const {
  // With block scales, a stage holds its K block's scales of the tile's rows and of its B column block.
  return problem.scale == ScaleMode::Block128 ? cta_tile.m + 1 : 0;
}

namespace {

bool isPow2(int64_t v) { return v >= 1 && (v & (v - 1)) == 0; }

void validateTiles(const MatmulParams& p) {
  const TileShape& c = p.cta_tile;
  const TileShape& w = p.warp_tile;
  const TileShape& i = p.instruction_tile;
  TG_USER_CHECK(c.m >= 1 && c.n >= 1 && c.k >= 1) << "cta_tile " << c.toString() << ": every extent must be >= 1";
  TG_USER_CHECK(w.m >= 1 && w.n >= 1 && w.k >= 1) << "warp_tile " << w.toString() << ": every extent must be >= 1";
  TG_USER_CHECK(c.m % w.m == 0 && c.n % w.n == 0 && w.k == c.k)
      << "warp_tile " << w.toString() << " must divide cta_tile " << c.toString() << " in m and n and match it in k";
  TG_USER_CHECK(!p.pingpong || (p.arch == Arch::Sm90 && w == c))
      << "ping-pong kernels are sm_90 kernels whose consumer warpgroups each take a whole tile: warp_tile "
      << w.toString() << " must equal cta_tile " << c.toString() << (p.arch == Arch::Sm90 ? "" : " (and arch sm_90)");
  if (p.arch == Arch::Sm80) {
    TG_USER_CHECK(i == (TileShape{16, 8, 16})) << "sm_80 uses mma.sync m16n8k16: instruction_tile must be 16x8x16, got "
                                               << i.toString();
    TG_USER_CHECK(w.m % 16 == 0 && w.n % 16 == 0)
        << "sm_80 warp_tile " << w.toString() << ": m and n must be multiples of 16 (ldmatrix x4 loads 16x16)";
    TG_USER_CHECK(c.k % 16 == 0) << "sm_80 cta_tile k is " << c.k << ": it must be a multiple of 16 (mma k)";
    TG_USER_CHECK(p.mathGroups() >= 1 && p.mathGroups() <= 16)
        << "sm_80: cta_tile / warp_tile gives " << p.mathGroups() << " warps; allowed 1 to 16";
  } else {
    TG_USER_CHECK(i.m == 64 && (i.k == 16 || i.k == 32))
        << "sm_90 uses wgmma m64nNk16 (16-bit inputs) or m64nNk32 (8-bit): instruction_tile must be 64xNx16 or "
           "64xNx32, got "
        << i.toString();
    TG_USER_CHECK(i.n >= 8 && i.n <= 256 && i.n % 8 == 0)
        << "sm_90 wgmma N is " << i.n << ": it must be a multiple of 8 from 8 to 256";
    TG_USER_CHECK(w.m % 64 == 0 && w.n % i.n == 0)
        << "sm_90 warpgroup tile " << w.toString() << " must be a multiple of the wgmma shape " << i.toString();
    TG_USER_CHECK(c.k % (2 * i.k) == 0) << "sm_90 cta_tile k is " << c.k << ": it must be a multiple of " << 2 * i.k
                                        << " (two wgmma k" << i.k << " steps: a cut last K tile runs half or all of them)";
    TG_USER_CHECK(p.mathGroups() >= 1 && p.mathGroups() <= kMaxConsumersSm90)
        << "sm_90: cta_tile / warp_tile gives " << p.mathGroups() << " consumer warpgroups; allowed 1 to "
        << kMaxConsumersSm90;
    // A consumer thread holds its warpgroup tile's accumulators (m * n / 128 floats) and needs 32
    // registers more (72 with 128 rows) for addresses, descriptors and the epilogue, within what
    // setmaxnreg gives it. One wgmma's operands must fit the launch bound's share, which ptxas
    // compiles each instruction within: m64n224 with three consumers (128) failed with "Insufficient
    // registers".
    const RegisterSplit split = p.sm90Registers();
    const int64_t accumulators = w.m * w.n / 128, per_instruction = i.n / 2;
    TG_USER_CHECK(w.m == 64 || w.m == 128)
        << "sm_90 warpgroup tile " << w.toString() << ": a consumer warpgroup takes 64 or 128 rows";
    TG_USER_CHECK(w.n == c.n && i.n == w.n)
        << "sm_90 kernels give each consumer warpgroup the whole tile width, one wgmma m64nNk" << i.k
        << " per 64 rows and K step: warpgroup tile "
        << w.toString() << " and instruction " << i.toString() << " do not fit cta tile " << c.toString()
        << " (use an n of 8 to 256 in steps of 8)";
    TG_USER_CHECK(p.sm90AccumulatorsFit())
        << "sm_90 warpgroup tile " << w.toString() << " needs " << accumulators
        << " accumulator registers a thread (" << per_instruction << " for one wgmma), but " << p.mathGroups()
        << " consumer warpgroups leave each thread " << split.consumer << " (at most "
        << split.consumer - p.sm90RegisterMargin() << " for accumulators) and one instruction " << split.compiled
        << " (at most " << split.compiled - kSm90InstructionMargin << "): use a narrower cta_tile n, fewer rows, or 128-row warpgroup tiles (fewer consumers)";
  }
  const ClusterShape& cl = p.cluster;
  TG_USER_CHECK(cl.m >= 1 && cl.n >= 1 && isPow2(cl.m) && isPow2(cl.n) && cl.m * cl.n <= 8)
      << "cluster " << cl.m << "x" << cl.n << ": extents must be powers of two with at most 8 CTAs";
  TG_USER_CHECK(p.arch == Arch::Sm90 || (cl.m == 1 && cl.n == 1)) << "clusters need sm_90; sm_80 takes cluster 1x1";
  TG_USER_CHECK(p.arch == Arch::Sm80 || (cl.n == 1 && cl.m <= 4))
      << "sm_90 kernels take clusters of 1, 2 or 4 CTAs along M (sharing B), got " << cl.m << "x" << cl.n;
}

// The epilogue's tile against the CTA and warp tiles.
void validateEpilogue(const MatmulParams& p) {
  const TileShape& c = p.cta_tile;
  if (p.arch == Arch::Sm80) {
    TG_USER_CHECK(p.epilogue_tile == (TileShape{16 * p.mathGroups(), p.warp_tile.n, 1}))
        << "sm_80 epilogue_tile " << p.epilogue_tile.toString() << " must be a 16-row slab per warp: "
        << TileShape{16 * p.mathGroups(), p.warp_tile.n, 1}.toString();
    return;
  }
  TG_USER_CHECK(p.stage_epilogue) << "sm_90 kernels always stage the epilogue: stage_epilogue must be true";
  TG_USER_CHECK(p.mma_order == MmaOrder::Rows)
      << "mma_order " << toString(p.mma_order) << " orders sm_80's mma.sync; sm_90 kernels take rows";
  // A width that does not divide n ends on a slab overlapping the one before, which must start on an
  // 8-column block of the accumulators.
  const int64_t e = p.epilogue_tile.n;
  TG_USER_CHECK(p.epilogue_tile.m == p.epilogueRows() && e >= 8 && e % 8 == 0 && e <= c.n && (c.n - e) % 8 == 0)
      << "sm_90 epilogue_tile " << p.epilogue_tile.toString() << " must span the consumer warpgroups' rows ("
      << p.epilogueRows() << (p.pingpong ? ", a tile each" : "") << ") and be a multiple of 8 columns up to its n (" << c.n << ")";
}

}  // namespace

void MatmulParams::validateShape() const { validateTiles(*this); }

void MatmulParams::validate(const MatmulProblem& user_problem, const DeviceSpec& device) const {
  TG_USER_CHECK(arch == Arch::Sm80 || device.arch() == Arch::Sm90)
      << "params target " << scheduler::toString(arch) << " but the device is " << device.toString()
      << "; sm_90 kernels need an sm_90 device (sm_80 kernels run on both)";
  TG_USER_CHECK(!swap_ab || arch == Arch::Sm90)
      << "swap_ab (computing C^T = B^T * A^T) is emitted for sm_90 kernels only; sm_80 kernels take swap_ab false";
  const MatmulProblem problem = kernelProblem(user_problem);
  validateShape();
  validateEpilogue(*this);
  TG_USER_CHECK(!isFp8(problem.a_dtype) || arch == Arch::Sm90)
      << "8-bit inputs (" << scheduler::toString(problem.a_dtype) << ", " << scheduler::toString(problem.b_dtype)
      << ") need sm_90a's wgmma k32; sm_80 kernels (mma.sync) take bf16 or fp16: use arch sm_90 on a Hopper device";
  // Block scales: a K tile is a scale block, each warpgroup promotes its 64 rows' partial sums (a
  // second set of accumulators) and a tile's columns share B's scale.
  TG_USER_CHECK(problem.scale != ScaleMode::Block128 ||
                (arch == Arch::Sm90 && !swap_ab && !pingpong && cta_tile.k == kScaleBlock && warp_tile.m == 64 &&
                 cta_tile.n <= kScaleBlock && kScaleBlock % cta_tile.n == 0))
      << "block scales (block128) are applied per K tile by consumer warpgroups of 64 rows to tiles within one "
         "128-column block of B: they need cta_tile k 128, n dividing 128, warp_tile m 64, C = A B (no swap_ab) and "
         "no ping-pong; got "
      << toString();
  TG_USER_CHECK(arch == Arch::Sm80 || instruction_tile.k == problem.instructionK())
      << "instruction_tile " << instruction_tile.toString() << " does not fit " << scheduler::toString(problem.a_dtype)
      << " inputs: wgmma's K is " << problem.instructionK() << " for them (32 bytes of a row)";
  if (arch == Arch::Sm90) {
    // The epilogue slab is stored along C's rows: n-contiguous, or m-contiguous when the kernel
    // computes C^T. Transposed, each consumer's rows are whole atoms, one TMA box each.
    const Major major = swap_ab ? Major::MN : Major::K;
    const int64_t width = smem_epilogue.contiguousElems();
    TG_USER_CHECK(smem_epilogue.major == major && smem_epilogue.dtype == problem.out_dtype &&
                  (swap_ab ? warp_tile.m : epilogue_tile.n) % width == 0)
        << "smem_epilogue atom " << smem_epilogue.toString() << " does not fit epilogue_tile "
        << epilogue_tile.toString() << ": it must be " << scheduler::toString(major) << "-major "
        << scheduler::toString(problem.out_dtype) << (swap_ab ? " and tile each consumer's rows" : " and tile the slab's width");
  }
  if (width_at_launch) {
    TG_USER_CHECK(kLaunchWidthNarrowest <= narrowest_width && narrowest_width <= cta_tile.n &&
                  cta_tile.n <= widest_width && widest_width <= kLaunchWidthWidest &&
                  narrowest_width % kLaunchWidthStep == 0 && widest_width % kLaunchWidthStep == 0 &&
                  cta_tile.n % kLaunchWidthStep == 0 && warp_tile.n == cta_tile.n)
        << "width_at_launch: the kernel holds tile widths from narrowest_width " << narrowest_width << " to widest_width "
        << widest_width << ", multiples of " << kLaunchWidthStep << " within " << kLaunchWidthNarrowest << " to "
        << kLaunchWidthWidest << ", and cta_tile " << cta_tile.toString() << " must be one of them";
    TG_USER_CHECK(arch == Arch::Sm90 && shapeAtLaunch() && cluster.m == 1 && majorOfB(problem.layout) == Major::K)
        << "width_at_launch: the kernel holds several tile widths for sm_90 tiles alone (cluster 1x1) over a K-major "
        << "B, reading its shape at launch; got cluster " << cluster.m << "x" << cluster.n << ", B "
        << scheduler::toString(majorOfB(problem.layout)) << "-major" << (shapeAtLaunch() ? "" : ", shape compiled in");
  }
  TG_USER_CHECK(stages >= 2 && stages <= 32) << "stages is " << stages
                                              << ": allowed 2 to 32 (one stage loads while another computes)";
  TG_USER_CHECK(split_k == 1) << "split_k is " << split_k << ": only 1 is supported so far";
  TG_USER_CHECK(!stream_k || (persistent && arch == Arch::Sm90))
      << "stream_k needs a persistent sm_90 kernel (it shares the last wave among resident CTAs); this schedule is "
      << scheduler::toString(arch) << (persistent ? " persistent" : " with one CTA per tile");
  TG_USER_CHECK(!pingpong || (persistent && !stream_k && grid.method != GridMethod::SplitMerge))
      << "ping-pong kernels hand each consumer warpgroup whole tiles in turn: they need a persistent grid, stream-K "
         "off and a traversal whose units all exist (none or swizzle-merge); got"
      << (persistent ? "" : " one CTA per tile") << (stream_k ? " stream-K" : "")
      << (grid.method == GridMethod::SplitMerge ? " split-merge" : "");
  grid.validate();
  // The operand atoms must tile the operand tiles.
  const auto checkAtom = [](const SmemAtom& atom, const char* what, int64_t mn, int64_t k) {
    const int64_t major_extent = atom.major == Major::K ? k : mn;
    const int64_t row_extent = atom.major == Major::K ? mn : k;
    TG_USER_CHECK(major_extent % atom.contiguousElems() == 0 && row_extent % SmemAtom::kRows == 0)
        << what << " atom " << atom.toString() << " does not tile a " << mn << "x" << k << " tile";
  };
  checkAtom(smem_a, "A", cta_tile.m, cta_tile.k);
  checkAtom(smem_b, "B", cta_tile.n, cta_tile.k);
  TG_USER_CHECK(smem_a.major == majorOfA(problem.layout) && smem_b.major == majorOfB(problem.layout))
      << "the smem atoms' majors (" << scheduler::toString(smem_a.major) << ", " << scheduler::toString(smem_b.major)
      << ") do not match layout " << scheduler::toString(problem.layout);
  TG_USER_CHECK(smem_a.dtype == problem.a_dtype && smem_b.dtype == problem.b_dtype)
      << "the smem atoms hold " << scheduler::toString(smem_a.dtype) << " and " << scheduler::toString(smem_b.dtype)
      << ", but the kernel's A and B are " << scheduler::toString(problem.a_dtype) << " and "
      << scheduler::toString(problem.b_dtype);
  const auto checkPad = [&](bool pad, char operand) {
    const bool misaligned = operandMisaligned(problem, operand);
    const int64_t align = operand == 'a' ? problem.align_a : problem.align_b;
    const char* name = operand == 'a' ? "A" : "B";
    TG_USER_CHECK(!pad || misaligned) << "pad_" << operand << " is set, but " << name
                                      << " is already 16-byte aligned (align_" << operand << " " << align
                                      << " elements): there is nothing to pad";
    TG_USER_CHECK(pad || !misaligned || arch == Arch::Sm80)
        << "sm_90 kernels load " << name << " by TMA, which reads only 16-byte aligned rows, and align_" << operand
        << " is " << align << " elements: pad_" << operand
        << " must be set (--pad-operands on: the runtime reads a padded copy)";
  };
  // A dot kernel reads A and B in place, at the width their alignment allows (validateDot).
  if (!dot) {
    checkPad(pad_a, 'a');
    checkPad(pad_b, 'b');
  }
  const auto checkVec = [](int64_t vec, int64_t align, bool pad, DType type, const char* what) {
    const int64_t allowed = pad ? granuleElems(type) : align;
    TG_USER_CHECK(isPow2(vec) && vec * bytes(type) <= 16 && vec <= allowed)
        << "vec_" << what << " is " << vec << ": it must be a power of two, at most 16 bytes of "
        << scheduler::toString(type) << " and at most the operand's alignment (" << allowed << " elements"
        << (pad ? ", padded" : "") << ")";
  };
  if (!dot) {
    checkVec(vec_a, problem.align_a, pad_a, problem.a_dtype, "a");
    checkVec(vec_b, problem.align_b, pad_b, problem.b_dtype, "b");
  }
  const int64_t smem = smemBytes(problem);
  TG_USER_CHECK(smem <= device.smem_per_block)
      << "cta_tile " << cta_tile.toString() << " with " << stages << " stages needs " << smem
      << " bytes of shared memory; the device allows " << device.smem_per_block << " per block";
  TG_USER_CHECK(threadsPerCta() <= 1024) << "the schedule needs " << threadsPerCta() << " threads per CTA; at most 1024";
  if (dot) {
    TG_USER_CHECK(!pad_a && !pad_b) << "a dot kernel reads A and B in place: pad_a and pad_b must be off";
    validateDot(*dot, problem, device, specialize_shape, deterministic);
  }
}

std::string MatmulParams::toString(ParamsText what) const {
  // A kernel holding several widths is described by the widest; the launch's width is a problem value.
  const bool family = width_at_launch && what == ParamsText::Kernel;
  const auto widest = [&](TileShape t) {
    if (family) t.n = widest_width;
    return t.toString();
  };
  std::string text = fmt::format("{} cta {} warp {} inst {} stages {} vec {}/{}", scheduler::toString(arch),
                                 widest(cta_tile), widest(warp_tile), widest(instruction_tile), stages, vec_a, vec_b);
  if (width_at_launch) {
    text += family ? fmt::format(" widths {} to {} at launch", narrowest_width, widest_width)
                   : fmt::format(" width at launch (kernel of widths {} to {})", narrowest_width, widest_width);
  }
  // The padded copies are made at launch; the kernel reads them as it reads aligned operands.
  if ((pad_a || pad_b) && what == ParamsText::All) text += fmt::format(" padded {}", pad_a && pad_b ? "A/B" : pad_a ? "A" : "B");
  text += fmt::format(" smem A {} / B {} / epilogue {}", scheduler::toString(smem_a.kind), scheduler::toString(smem_b.kind),
                      stage_epilogue ? epilogue_tile.toString() + " " + scheduler::toString(smem_epilogue.kind)
                                     : std::string("from registers"));
  const bool kernel_traversal = what == ParamsText::Kernel && groupAtLaunch();
  const std::string traversal = kernel_traversal ? grid.withoutGroup(factorAtLaunch()) : grid.toString();
  const std::string clusters = what == ParamsText::Kernel && clusterAtLaunch()
                                   ? fmt::format("1 to {} at launch", kMaxClusterAtLaunch)
                                   : fmt::format("{}x{}", cluster.m, cluster.n);
  text += fmt::format(" grid {}{} cluster {} split_k {}", traversal, persistent ? (stream_k ? " persistent stream-k" : " persistent") : "",
                      clusters, split_k);
  if (pingpong) text += " ping-pong";
  if (swap_ab) text += " swap_ab (computes C^T = B^T A^T)";
  if (mma_order != MmaOrder::Rows) text += fmt::format(" mma {}", scheduler::toString(mma_order));
  if (!shapeAtLaunch()) text += " shape compiled in";
  if (shapeAtLaunch() && launch_choices_compiled) text += " launch choices compiled in";
  if (shapeAtLaunch() && wide_tile_grid) text += " wide tile grid";
  if (dot) text = dot->toString() + (swap_ab ? " swap_ab (computes C^T = B^T A^T)" : "") + "; instead of " + text;
  return text;
}

size_t MatmulParams::hash() const {
  // The JSON text names every field, so hashing it keeps the hash in step with the fields.
  nlohmann::json j = *this;
  return std::hash<std::string>()(j.dump());
}

namespace {

nlohmann::json tileJson(const TileShape& t) { return nlohmann::json::array({t.m, t.n, t.k}); }

TileShape tileFrom(const nlohmann::json& j, const char* field) {
  TG_USER_CHECK(j.is_array() && j.size() == 3) << "params." << field << " must be [m, n, k]";
  return TileShape{j[0].get<int64_t>(), j[1].get<int64_t>(), j[2].get<int64_t>()};
}

nlohmann::json atomJson(const SmemAtom& a) {
  const auto s = a.byteSwizzle();
  return {{"atom", toString(a.kind)}, {"major", toString(a.major)}, {"dtype", toString(a.dtype)},
          {"swizzle", {s[0], s[1], s[2]}}};
}

SmemAtom atomFrom(const nlohmann::json& j, const char* field) {
  TG_USER_CHECK(j.is_object()) << "params." << field << " must be an object with atom, major and dtype";
  const std::string major = j.at("major").get<std::string>();
  TG_USER_CHECK(major == "K" || major == "MN") << "params." << field << ".major is '" << major << "': expected K or MN";
  return SmemAtom{parseAtomKind(j.at("atom").get<std::string>()), major == "K" ? Major::K : Major::MN,
                  parseDType(j.at("dtype").get<std::string>())};
}

}  // namespace

void to_json(nlohmann::json& j, const MatmulParams& p) {
  j = nlohmann::json{{"arch", toString(p.arch)},
                     {"cta_tile", tileJson(p.cta_tile)},
                     {"warp_tile", tileJson(p.warp_tile)},
                     {"instruction_tile", tileJson(p.instruction_tile)},
                     {"stages", p.stages},
                     {"vec", {p.vec_a, p.vec_b}},
                     {"pad", {p.pad_a, p.pad_b}},
                     {"smem_a", atomJson(p.smem_a)},
                     {"smem_b", atomJson(p.smem_b)},
                     {"epilogue_tile", tileJson(p.epilogue_tile)},
                     {"smem_epilogue", atomJson(p.smem_epilogue)},
                     {"stage_epilogue", p.stage_epilogue},
                     {"mma_order", toString(p.mma_order)},
                     {"grid",
                      {{"method", toString(p.grid.method)},
                       {"factors", p.grid.factors},
                       {"group", toString(p.grid.group)}}},
                     {"persistent", p.persistent},
                     {"stream_k", p.stream_k},
                     {"deterministic", p.deterministic},
                     {"cluster", {p.cluster.m, p.cluster.n}},
                     {"split_k", p.split_k},
                     {"swap_ab", p.swap_ab},
                     {"specialize_shape", p.specialize_shape},
                     {"wide_tile_grid", p.wide_tile_grid},
                     {"width_at_launch", p.width_at_launch},
                     {"launch_choices_compiled", p.launch_choices_compiled},
                     {"pingpong", p.pingpong},
                     {"launch_widths", {p.narrowest_width, p.widest_width}}};
  if (p.dot) {
    j["dot"] = {{"rows", p.dot->rows}, {"cols", p.dot->cols}, {"threads", p.dot->threads}, {"vec", p.dot->vec},
                {"unroll", p.dot->unroll}};
  }
}

void from_json(const nlohmann::json& j, MatmulParams& p) {
  try {
    p.arch = parseArch(j.at("arch").get<std::string>());
    p.cta_tile = tileFrom(j.at("cta_tile"), "cta_tile");
    p.warp_tile = tileFrom(j.at("warp_tile"), "warp_tile");
    p.instruction_tile = tileFrom(j.at("instruction_tile"), "instruction_tile");
    p.stages = j.at("stages").get<int64_t>();
    const auto& vec = j.at("vec");
    TG_USER_CHECK(vec.is_array() && vec.size() == 2) << "params.vec must be [a, b]";
    p.vec_a = vec[0].get<int64_t>();
    p.vec_b = vec[1].get<int64_t>();
    // Optional: params written before padded copies existed read as without them.
    const nlohmann::json pad = j.value("pad", nlohmann::json::array({false, false}));
    TG_USER_CHECK(pad.is_array() && pad.size() == 2) << "params.pad must be [a, b]";
    p.pad_a = pad[0].get<bool>();
    p.pad_b = pad[1].get<bool>();
    p.smem_a = atomFrom(j.at("smem_a"), "smem_a");
    p.smem_b = atomFrom(j.at("smem_b"), "smem_b");
    p.epilogue_tile = tileFrom(j.at("epilogue_tile"), "epilogue_tile");
    p.smem_epilogue = atomFrom(j.at("smem_epilogue"), "smem_epilogue");
    p.stage_epilogue = j.at("stage_epilogue").get<bool>();
    // Optional: params written before the order was a choice read as rows, the order they compiled to.
    p.mma_order = parseMmaOrder(j.value("mma_order", std::string("rows")));
    const auto& g = j.at("grid");
    p.grid.method = parseGridMethod(g.at("method").get<std::string>());
    p.grid.factors = g.at("factors").get<std::vector<int64_t>>();
    p.grid.group = parseGridGroup(g.at("group").get<std::string>());
    p.persistent = j.at("persistent").get<bool>();
    // Optional: params written before stream-K existed read as without it.
    p.stream_k = j.value("stream_k", false);
    p.deterministic = j.value("deterministic", false);
    const auto& c = j.at("cluster");
    TG_USER_CHECK(c.is_array() && c.size() == 2) << "params.cluster must be [m, n]";
    p.cluster = ClusterShape{c[0].get<int64_t>(), c[1].get<int64_t>()};
    p.split_k = j.at("split_k").get<int64_t>();
    p.swap_ab = j.value("swap_ab", false);
    p.specialize_shape = j.value("specialize_shape", false);
    p.wide_tile_grid = j.value("wide_tile_grid", false);
    p.width_at_launch = j.value("width_at_launch", false);
    p.launch_choices_compiled = j.value("launch_choices_compiled", false);
    p.pingpong = j.value("pingpong", false);
    const nlohmann::json widths = j.value("launch_widths", nlohmann::json::array({0, 0}));
    TG_USER_CHECK(widths.is_array() && widths.size() == 2) << "params.launch_widths must be [narrowest, widest]";
    p.narrowest_width = widths[0].get<int64_t>();
    p.widest_width = widths[1].get<int64_t>();
    // Optional: absent for tiled kernels.
    p.dot.reset();
    if (j.contains("dot") && !j.at("dot").is_null()) {
      const auto& d = j.at("dot");
      p.dot = DotParams{d.at("rows").get<int64_t>(), d.at("cols").get<int64_t>(), d.at("threads").get<int64_t>(),
                        d.at("vec").get<int64_t>(), d.at("unroll").get<int64_t>()};
    }
  } catch (const nlohmann::json::exception& e) {
    TG_USER_ERROR() << "malformed MatmulParams JSON: " << e.what();
  }
}

}  // namespace tilegrid::scheduler
