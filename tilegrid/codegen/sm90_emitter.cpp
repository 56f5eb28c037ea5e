#include "tilegrid/codegen/sm90_emitter.h"

#include <algorithm>
#include <optional>

#include "tilegrid/codegen/cuda_dtype.h"
#include "tilegrid/codegen/device/tma_boxes.cuh"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/epilogue_function.h"
#include "tilegrid/codegen/index_functions.h"
#include "tilegrid/codegen/sm90_epilogue.h"
#include "tilegrid/codegen/template.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/ir/ir.h"
#include "tilegrid/ir/memo.h"

namespace tilegrid::codegen {
namespace {

using scheduler::DType;
using scheduler::Major;

// Where TMA and wgmma put a shared-memory byte: the IR's Swizzle with the atom's byte parameters
// (Swizzle<B, 4, 3>), which is the hardware's.
int64_t swizzledByte(const scheduler::SmemAtom& atom, int64_t address) {
  const auto [bits, base, shift] = atom.byteSwizzle();
  return ir::Swizzle::apply(address, bits, base, shift);
}

// How one operand's staged tile is filled by TMA and read by wgmma, all derived from the smem
// domain's Indexer expression (tg_smem_a / tg_smem_b) and checked element by element against what
// the hardware does: a TMA box lands as rows of the swizzle span, swizzled on absolute addresses;
// wgmma reads the canonical layout its descriptor names.
struct TmaBox {
  int64_t mn = 0, k = 0;  // origin in the stage's tile
  int64_t owner = 0;      // the cluster rank that loads it (and multicasts it to the others)
};

struct OperandPlan {
  int64_t width = 0;            // atom elements along the contiguous mode
  std::vector<TmaBox> boxes;    // the TMA boxes that fill one stage
  int64_t box_rows = 0, tile_rows = 0, blocks = 0;  // as the kernel walks them (tg_load_stage)
  std::vector<uint32_t> box;    // box extents, contiguous first
  int64_t sharers = 1;          // CTAs of a cluster sharing this operand tile (multicast)
  int64_t landed_bytes = 0;     // bytes the boxes write into each CTA's stage (overlaps twice)
  int64_t lbo = 0, sbo = 0;                        // descriptor byte offsets
  int layout_type = 0;
};

// `sharers` CTAs of a cluster load the tile together: each loads 1/sharers of every box's rows and
// multicasts it to all of them.
// With wgmma_mn == 0 the tile is not a wgmma operand (the epilogue slab): only its TMA boxes are planned.
OperandPlan planOperandUncached(const char* name, const ir::TensorDomain& smem, const scheduler::SmemAtom& atom,
                                int64_t tile_mn, int64_t tile_k, int64_t wgmma_mn, int64_t groups, int64_t sharers) {
  const SmemOffsets offset(smem);
  const int64_t esize = scheduler::bytes(atom.dtype);
  // wgmma's K: 32 bytes of a row (k16 for 16-bit elements, k32 for 8-bit).
  const int64_t instr_k = 32 / esize;
  // Byte offset of (mn, k) in stage 0.
  auto at = [&](int64_t mn, int64_t k) { return offset(mn, k) * esize; };
  const int bits = atom.swizzleBits();
  const int64_t span = atom.spanBytes();
  OperandPlan plan;
  plan.width = atom.contiguousElems();
  plan.layout_type = atom.wgmmaLayoutType();
  const bool k_major = atom.major == Major::K;
  // TMA boxes: the contiguous mode is one swizzle span wide, the other mode covers the tile, cut in
  // `sharers` parts.
  const int64_t tile_rows = k_major ? tile_mn : tile_k;
  TG_USER_CHECK(tile_rows % 8 == 0)
      << name << ": a " << tile_mn << "x" << tile_k << " tile cannot be loaded in TMA boxes: its "
      << (k_major ? "rows" : "k extent") << " (" << tile_rows << ") must be a multiple of 8";
  // Parts of whole 8-row swizzle patterns; where the rows do not split evenly the last part overlaps
  // the one before, and its rows land twice with the same bytes (each counted by the full barrier).
  const int64_t rows = scheduler::ceilDiv(scheduler::ceilDiv(tile_rows, sharers), 8) * 8;
  const int64_t blocks = (k_major ? tile_k : tile_mn) / plan.width;
  plan.sharers = sharers;
  plan.box_rows = rows;
  plan.tile_rows = tile_rows;
  plan.blocks = blocks;
  plan.box = {static_cast<uint32_t>(plan.width), static_cast<uint32_t>(rows)};
  for (int64_t j = 0; j < blocks; ++j) {
    for (int64_t part = 0; part < sharers; ++part) {
      // Where the kernel loads the box (tilegrid/codegen/device/tma_boxes.cuh).
      const int64_t first =
          tg_box_first_row(static_cast<int>(part), static_cast<int>(rows), static_cast<int>(tile_rows));
      const TmaBox box = k_major ? TmaBox{first, j * plan.width, part} : TmaBox{j * plan.width, first, part};
      plan.boxes.push_back(box);
    }
  }
  plan.landed_bytes = static_cast<int64_t>(plan.boxes.size()) * rows * plan.width * esize;
  for (const TmaBox& box : plan.boxes) {
    const int64_t base = at(box.mn, box.k);
    TG_INTERNAL_CHECK(base % (8 * span) == 0) << name << ": the TMA box at (" << box.mn << ", " << box.k
                                              << ") starts at byte " << base << ", not on its swizzle pattern's boundary";
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < plan.width; ++c) {
        const int64_t mn = k_major ? box.mn + r : box.mn + c;
        const int64_t k = k_major ? box.k + c : box.k + r;
        TG_INTERNAL_CHECK(at(mn, k) == swizzledByte(atom, base + r * span + c * esize))
            << name << ": element (" << mn << ", " << k << ") is not where a TMA box with " << span
            << "-byte swizzle puts it: the scheduled smem layout and the hardware disagree";
      }
    }
  }
  if (wgmma_mn == 0) return plan;
  // Descriptor offsets: K-major steps 8-row groups by SBO (and, without a swizzle, the two 16-byte
  // halves of a K step by LBO); MN-major steps contiguous blocks by LBO and 8-k groups by SBO
  // (roles swapped without a swizzle).
  if (k_major) {
    plan.sbo = tile_mn > 8 ? at(8, 0) - at(0, 0) : 8 * span;
    plan.lbo = plan.width < instr_k ? at(0, plan.width) - at(0, 0) : 16;
  } else {
    const int64_t next_block = tile_mn > plan.width ? at(plan.width, 0) - at(0, 0) : 8 * span;
    const int64_t next_group = tile_k > 8 ? at(0, 8) - at(0, 0) : 8 * span;
    plan.lbo = bits == 0 ? next_group : next_block;
    plan.sbo = bits == 0 ? next_block : next_group;
  }
  // The canonical layout wgmma reads from each descriptor start (one per 64-row block and K
  // step), against the smem domain.
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t kk = 0; kk < tile_k; kk += instr_k) {
      const int64_t start = at(g * wgmma_mn, kk);
      for (int64_t mn = 0; mn < wgmma_mn; ++mn) {
        for (int64_t k = 0; k < instr_k; ++k) {
          int64_t canonical = 0;
          if (k_major) {
            const int64_t halves = plan.width < instr_k ? (k / plan.width) * plan.lbo + (k % plan.width) * esize : k * esize;
            canonical = (mn / 8) * plan.sbo + (mn % 8) * span + halves;
          } else {
            const int64_t block = bits == 0 ? plan.sbo : plan.lbo, group = bits == 0 ? plan.lbo : plan.sbo;
            canonical = (mn / plan.width) * block + (mn % plan.width) * esize + (k / 8) * group + (k % 8) * span;
          }
          TG_INTERNAL_CHECK(swizzledByte(atom, start + canonical) == at(g * wgmma_mn + mn, kk + k))
              << name << ": wgmma's canonical " << (k_major ? "K" : "MN") << "-major layout (LBO " << plan.lbo
              << ", SBO " << plan.sbo << ") misses element (" << g * wgmma_mn + mn << ", " << kk + k
              << ") of the scheduled smem tile";
        }
      }
    }
  }
  TG_INTERNAL_CHECK(plan.lbo % 16 == 0 && plan.sbo % 16 == 0 && plan.lbo < (1 << 18) && plan.sbo < (1 << 18))
      << name << ": descriptor offsets LBO " << plan.lbo << " / SBO " << plan.sbo << " do not fit 14 bits of 16 bytes";
  return plan;
}

// The plan checks every element of the tile against the hardware's layouts and depends only on its
// arguments (ir::Memo).
OperandPlan planOperand(const char* name, const ir::TensorDomain& smem, const scheduler::SmemAtom& atom,
                        int64_t tile_mn, int64_t tile_k, int64_t wgmma_mn, int64_t groups, int64_t sharers) {
  static ir::Memo<OperandPlan> plans;
  return plans.get(ir::memoKey(name, smem, atom, tile_mn, tile_k, wgmma_mn, groups, sharers), [&] { return planOperandUncached(name, smem, atom, tile_mn, tile_k, wgmma_mn, groups, sharers); });
}

// wgmma descriptors whose start addresses step by constants: from a 64-row block's first K step
// of stage 0 to any K step kk of any stage, in 16-byte units. Derived by algebra on the smem
// domain's offset at (group_mn * g, IK * kk, stage) for every block g of the tile (IK the
// instruction's K): the swizzle's
// XOR drops out where the bits it reads are provably clear (ir::simplifyBits), and what remains must
// be affine in kk and stage with constant steps (ir::affineIn). Nothing otherwise, and the kernel
// then evaluates the index at every step.
struct DescriptorSteps {
  int64_t stage = 0, kk = 0;
};

std::optional<DescriptorSteps> descriptorStepsUncached(const ir::TensorDomain& smem, DType dtype, int64_t group_mn,
                                                       int64_t tile_k) {
  const SmemOffsets offset(smem);
  const int64_t esize = scheduler::bytes(dtype), instr_k = 32 / esize;
  const ir::Val g = ir::Val::loopIndex("g"), kk = ir::Val::loopIndex("kk"), stage = ir::Val::loopIndex("stage");
  const std::map<std::string, int64_t> ranges = {
      {"g", offset.rows() / group_mn - 1}, {"kk", tile_k / instr_k - 1}, {"stage", offset.stages() - 1}};
  const ir::Val start =
      ir::simplifyBits(ir::substitute(offset.expression(), {{"x", g * group_mn}, {"y", kk * instr_k}, {"s", stage}}), ranges);
  const auto along_kk = ir::affineIn(start, "kk");
  if (!along_kk) return std::nullopt;
  const auto along_stage = ir::affineIn(along_kk->base, "stage");
  if (!along_stage) return std::nullopt;
  const auto kk_step = along_kk->step.constValue(), stage_step = along_stage->step.constValue();
  if (!kk_step || !stage_step) return std::nullopt;
  const DescriptorSteps bytes{*stage_step * esize, *kk_step * esize};
  if (bytes.stage % 16 != 0 || bytes.kk % 16 != 0) return std::nullopt;
  // The algebra's postcondition, on every start wgmma reads.
  for (int64_t gv = 0; gv <= ranges.at("g"); ++gv) {
    for (int64_t sv = 0; sv <= ranges.at("stage"); ++sv) {
      for (int64_t kv = 0; kv <= ranges.at("kk"); ++kv) {
        TG_INTERNAL_CHECK(offset(gv * group_mn, kv * instr_k, sv) == offset(gv * group_mn, 0, 0) + sv * *stage_step + kv * *kk_step)
            << smem.name() << ": the derived descriptor steps miss block " << gv << ", stage " << sv << ", K step " << kv;
      }
    }
  }
  return DescriptorSteps{bytes.stage / 16, bytes.kk / 16};
}

// The algebra and its check over every start depend only on the arguments (ir::Memo).
std::optional<DescriptorSteps> descriptorSteps(const ir::TensorDomain& smem, DType dtype, int64_t group_mn,
                                               int64_t tile_k) {
  static ir::Memo<std::optional<DescriptorSteps>> steps;
  return steps.get(ir::memoKey(smem, scheduler::toString(dtype), group_mn, tile_k),
                   [&] { return descriptorStepsUncached(smem, dtype, group_mn, tile_k); });
}

// The tensor map over one operand in global memory: contiguous dimension first, then the other,
// then the batch. Extents and strides are the problem's, as the kernel reads the operand: from the
// caller's buffer, or from the padded copy the runtime makes of an operand whose rows are not
// 16-byte aligned (TMA's rule). They are encoded on the host for each launch; the kernel's source
// does not depend on them.
struct OperandMap {
  TensorMapSpec spec;
  std::optional<PaddedCopy> padded;
};

OperandMap operandMap(const scheduler::MatmulSchedule& s, char operand, const OperandPlan& plan) {
  const char* name = operand == 'a' ? "A" : "B";
  const scheduler::MatmulProblem problem = s.kernelProblem();
  const scheduler::SmemAtom& atom = operand == 'a' ? s.params.smem_a : s.params.smem_b;
  const scheduler::OperandLayout o = s.operandLayout(operand);
  const int64_t esize = scheduler::bytes(atom.dtype);
  TG_INTERNAL_CHECK(o.ld * esize % 16 == 0 && (problem.batch == 1 || o.batch_stride * esize % 16 == 0))
      << name << ": rows " << o.ld << " and batch entries " << o.batch_stride
      << " elements apart are not 16-byte aligned; the schedule must pad them";
  OperandMap out;
  out.padded = paddedCopy(s, operand);
  TensorMapSpec& spec = out.spec;
  spec.dtype = atom.dtype;
  spec.dims = {static_cast<uint64_t>(o.contiguous), static_cast<uint64_t>(o.rows)};
  spec.strides_bytes = {static_cast<uint64_t>(o.ld * esize)};
  spec.box = plan.box;
  if (problem.batch > 1) {
    spec.dims.push_back(static_cast<uint64_t>(problem.batch));
    spec.strides_bytes.push_back(static_cast<uint64_t>(o.batch_stride * esize));
    spec.box.push_back(1);
  }
  spec.swizzle = static_cast<TmaSwizzle>(atom.tmaSwizzle());
  return out;
}

// tg_wgmma's number for an input type (wgmma_shapes.cuh: TG_WGMMA_F16, BF16, E4M3, E5M2).
int wgmmaType(DType type) {
  switch (type) {
    case DType::FP16: return 0;
    case DType::BF16: return 1;
    case DType::E4M3: return 2;
    case DType::E5M2: return 3;
    case DType::FP32: break;
  }
  TG_INTERNAL_ERROR() << "wgmma has no " << scheduler::toString(type) << " inputs";
  return 0;
}

}  // namespace

KernelSource emitSm90(const scheduler::MatmulSchedule& s) {
  const auto& p = s.params;
  // What the kernel computes: with swap_ab, C^T = B^T * A^T over the same buffers.
  const scheduler::MatmulProblem prob = s.kernelProblem();
  TG_USER_CHECK(p.arch == scheduler::Arch::Sm90) << "the sm_90 emitter needs an sm_90 schedule, got " << p.toString();
  TG_USER_CHECK(prob.a_dtype != DType::FP32 &&
                (scheduler::isFp8(prob.a_dtype) ? scheduler::isFp8(prob.b_dtype) : prob.a_dtype == prob.b_dtype))
      << "sm_90 kernels take bf16 or fp16 inputs of one type, or e4m3/e5m2 in any mix, got "
      << scheduler::toString(prob.a_dtype) << " and " << scheduler::toString(prob.b_dtype);
  // MatmulParams::validate() refuses everything else with the user's words; reaching here is a bug.
  TG_INTERNAL_CHECK((p.warp_tile.m == 64 || p.warp_tile.m == 128) && p.warp_tile.n == p.cta_tile.n &&
                    p.instruction_tile.n == p.warp_tile.n && p.cluster.n == 1 && p.cluster.m <= 4)
      << "unvalidated sm_90 params reached the emitter: " << p.toString();
  // The launch's cluster size, and the largest the kernel holds: the config describes that one's B
  // boxes, and the tile loaded alone's where the kernel holds both (clusterAtLaunch).
  const int64_t cm = p.cluster.m;
  const int64_t held_cm = p.clusterAtLaunch() ? scheduler::kMaxClusterAtLaunch : cm;
  TG_USER_CHECK(p.split_k == 1) << "split-K is not emitted; use split_k 1";
  const Major major_a = scheduler::majorOfA(prob.layout);
  const Major major_b = scheduler::majorOfB(prob.layout);
  const int64_t consumers = p.mathGroups(), m_blocks = p.cta_tile.m / 64;
  const OperandPlan plan_a = planOperand("A", s.smem_a, p.smem_a, p.cta_tile.m, p.cta_tile.k, 64, m_blocks, 1);
  // The code is laid out for the widest tile it holds (compiledTile); the launch's tile, which may be
  // narrower where the width is read at launch, sets the B boxes' rows in the tensor map.
  const int64_t widest = p.compiledTile().n;
  const OperandPlan plan_b = planOperand("B", s.smem_b, p.smem_b, widest, p.cta_tile.k, widest, 1, held_cm);
  const OperandPlan plan_b_alone = planOperand("B", s.smem_b, p.smem_b, widest, p.cta_tile.k, widest, 1, 1);
  TG_INTERNAL_CHECK(plan_b_alone.box_rows == plan_b.tile_rows && plan_b_alone.blocks == plan_b.blocks)
      << "a B tile loaded alone is one box of its rows per block (tg_load_stage): " << p.toString();
  const OperandPlan launch_b = planOperand("B", s.smem_b, p.smem_b, p.cta_tile.n, p.cta_tile.k, p.cta_tile.n, 1, cm);
  // The kernel loads a B tile of any width with the widest's boxes, the map setting their rows: one
  // box of the tile's rows per block along K, landing the tile's rows times its K bytes.
  TG_INTERNAL_CHECK(!p.width_at_launch || (major_b == Major::K && launch_b.sharers == 1 &&
                                           launch_b.box_rows == p.cta_tile.n && launch_b.blocks == plan_b.blocks))
      << "a kernel reading its tile width at launch needs a K-major B loaded alone: " << p.toString();
  const int64_t b_row_bytes = p.cta_tile.k * scheduler::bytes(prob.b_dtype);
  const OperandMap map_a = operandMap(s, 'a', plan_a);
  const OperandMap map_b = operandMap(s, 'b', launch_b);
  // Batched kernels address their operands in 3-D tensor maps.
  const bool batched = prob.batch > 1;
  // TMA stores need C's rows (and batches) 16-byte aligned; otherwise the epilogue stores directly.
  // The kernel takes both; the problem argument says which (tg_problem::c_by_tma).
  const bool tma_store = tmaStoresC(s);
  const int64_t out_bytes = scheduler::bytes(prob.out_dtype);
  const scheduler::OperandLayout layout_c = s.operandLayout('c');
  const int64_t slab_n = p.epilogue_tile.n;
  // Straight, each consumer stores its rows of the slab as one box; transposed (an m-contiguous
  // slab), as boxes of the atom's width.
  const OperandPlan plan_c =
      planOperand("C", s.smem_epilogue, p.smem_epilogue, p.epilogueRows(), slab_n, 0, 0, p.swap_ab ? 1 : consumers);
  TensorMapSpec map_c;
  map_c.dtype = prob.out_dtype;
  map_c.dims = {static_cast<uint64_t>(layout_c.contiguous), static_cast<uint64_t>(layout_c.rows)};
  map_c.strides_bytes = {static_cast<uint64_t>(layout_c.ld * out_bytes)};
  map_c.box = plan_c.box;
  if (batched) {
    map_c.dims.push_back(static_cast<uint64_t>(prob.batch));
    map_c.strides_bytes.push_back(static_cast<uint64_t>(layout_c.batch_stride * out_bytes));
    map_c.box.push_back(1);
  }
  map_c.swizzle = static_cast<TmaSwizzle>(p.smem_epilogue.tmaSwizzle());
  // An auxiliary output stored by TMA (MatmulParams::auxSlab) and an input c loaded by TMA (cSlab)
  // move their slabs in C's boxes and swizzle; their leading dimensions and batch strides are the
  // launch's (runtime::EpilogueArgs), which the runtime writes into the strides when it encodes the map.
  const bool aux_slab = p.auxSlab(prob), c_slab = p.cSlab(prob);
  const auto matrix_map = [&](const std::optional<DType>& dtype) {
    TensorMapSpec map = map_c;
    map.dtype = dtype.value_or(prob.out_dtype);
    return map;
  };
  const int64_t slab_pair_elems = 2 * p.epilogueRows() * slab_n;

  // wgmma descriptors step by constants where the algebra finds the steps for both operands.
  const auto steps_a = descriptorSteps(s.smem_a, prob.a_dtype, 64, p.cta_tile.k);
  const auto steps_b = descriptorSteps(s.smem_b, prob.b_dtype, widest, p.cta_tile.k);
  const bool stepped = steps_a && steps_b;
  ConfigBlock config = commonConfig(s);
  config.value("IK", p.instruction_tile.k, "wgmma's K: 32 bytes of the operands' rows")
      .value("WGMMA_TYPE_A", wgmmaType(prob.a_dtype), "input types, as tg_wgmma names them (TG_WGMMA_*)")
      .value("WGMMA_TYPE_B", wgmmaType(prob.b_dtype))
      .flag("BLOCK_SCALES", prob.scale == scheduler::ScaleMode::Block128,
            "each K tile's sum is scaled by A's 1x128 and B's 128x128 block scales into the totals")
      .value("BLOCK_SCALE_COLUMNS", scheduler::kScaleBlock, "columns of B sharing a block scale")
      .value("SCALE_STAGE_FLOATS", p.scaleStageFloats(prob), "a stage's block scales: A's for the tile's rows, then B's")
      .value("FIXED_K_TAIL_STEPS", fixedSize(s, s.kTailSteps()), "K steps of a last K tile cut by K")
      .value("WM", p.warp_tile.m, "rows of a consumer warpgroup")
      .value("WN", widest, "columns of a consumer warpgroup's tile (the widest it holds)")
      .flag("WIDTH_AT_LAUNCH", p.width_at_launch, "the kernel holds tile widths NARROWEST_WN to WN; the launch picks prob.bn")
      .value("NARROWEST_WN", p.width_at_launch ? p.narrowest_width : widest)
      .value("WIDTH_STEP", scheduler::kLaunchWidthStep)
      .value("B_ROW_TX_BYTES", b_row_bytes, "bytes a row of a K-major B tile lands: a narrower tile lands fewer")
      .value("CONSUMERS", consumers)
      .flag("PINGPONG", p.pingpong,
            "each consumer warpgroup takes whole tiles (WM = BM), the CTA's units in turns; else they share each tile")
      .value("CLUSTER_M", held_cm, "CTAs of a cluster, along M; they share B tiles (the most the kernel holds)")
      .flag("CLUSTER_AT_LAUNCH", p.clusterAtLaunch(),
            "the producer is instanced for CTAs alone and for CLUSTER_M; the launch picks prob.cluster_m")
      .value("PRODUCER_REGS", p.sm90Registers().producer)
      .value("CONSUMER_REGS", p.sm90Registers().consumer)
      .value("A_STAGE_ELEMS", p.cta_tile.m * p.cta_tile.k)
      .value("B_STAGE_ELEMS", widest * p.cta_tile.k)
      .value("C_SMEM_ELEMS", slab_pair_elems, "two epilogue slab buffers, WM rows a consumer")
      .flag("AUX_BY_TMA", aux_slab,
            "the auxiliary output has slab buffers of its own (AUX_SMEM_ELEMS, C's layout), stored by TMA where "
            "the launch allows it (tg_epilogue_args::aux_by_tma)")
      .value("AUX_SMEM_ELEMS", aux_slab ? slab_pair_elems : 0)
      .flag("C_IN_BY_TMA", c_slab,
            "the epilogue's input c comes into slab buffers of its own (C_IN_SMEM_ELEMS, C's layout) by TMA, "
            "two slabs ahead, where the launch allows it (tg_epilogue_args::c_by_tma)")
      .value("C_IN_SMEM_ELEMS", c_slab ? slab_pair_elems : 0)
      .value("C_IN_BOX_BYTES", c_slab ? p.warp_tile.m * slab_n * out_bytes : 0,
             "bytes a consumer warpgroup's c box lands")
      .value("STAGE_TX_BYTES", plan_a.landed_bytes + plan_b.landed_bytes,
             "bytes a stage's TMA boxes land in this CTA in a cluster of CLUSTER_M: overlapping boxes count twice")
      .value("STAGE_TX_BYTES_ALONE", plan_a.landed_bytes + plan_b_alone.landed_bytes, "in a CTA alone")
      .flag("BATCHED", batched, "3-D tensor maps: the batch entry is the last coordinate")
      .flag("STREAM_K", p.stream_k)
      .flag("TILES_FROM_PRODUCER", p.grid.method != scheduler::GridMethod::SplitMerge,
            "the consumers read each unit's tile where the producer leaves it (every unit of the traversal exists)")
      .flag("ACCUMULATE", s.accumulates(), "in-step pieces may add their sums at L2 (MatmulSchedule::accumulates)")
      .value("SLICE_MIN_PIECES", scheduler::kSliceReductionMinPieces,
             "in-step pieces add up in slices from this many on (planWorkSplit), where the kernel does not accumulate")
      .value("ACCUMULATION_FLOATS", scheduler::kAccumulationBytes / 4,
             "the workspace's area for accumulated sums, after the flags, the same for every kernel")
      .value("MAX_CTAS", !p.stream_k ? 0 : p.clusterAtLaunch() ? scheduler::waveCtas(p, prob, s.device) : s.ctas(),
             "a stream-K launch's persistent grid, at most")
      .value("FLAG_WORDS", streamKFlagWords(s.device), "the workspace's flag area, the same for every kernel of the device")
      .flag("DESCRIPTOR_STEPS", stepped, "wgmma descriptors step by constants over stages and K steps");
  const auto add_operand = [&](const char* group, const OperandPlan& plan, Major major,
                               const std::optional<DescriptorSteps>& steps) {
    config.flag("K_MAJOR", major == Major::K, "", group)
        .value("BOX_WIDTH", plan.width, "TMA box elements along the contiguous mode (one swizzle row)", group)
        .value("BOX_ROWS", plan.box_rows, "", group)
        .value("TILE_ROWS", plan.tile_rows, "", group)
        .value("BLOCKS", plan.blocks, "boxes along the contiguous mode", group)
        .value("SHARERS", plan.sharers, "CTAs loading the tile together (multicast)", group)
        .value("LBO", plan.lbo, "wgmma descriptor: leading byte offset", group)
        .value("SBO", plan.sbo, "stride byte offset", group)
        .value("LAYOUT", plan.layout_type, "swizzle mode (1: 128B, 2: 64B, 3: 32B, 0: none)", group)
        .value("DESC_STAGE_STEP", stepped ? steps->stage : 0, "descriptor steps, in 16 bytes", group)
        .value("DESC_KK_STEP", stepped ? steps->kk : 0, "", group);
  };
  add_operand("operand_a", plan_a, major_a, steps_a);
  add_operand("operand_b", plan_b, major_b, steps_b);
  addSm90EpilogueConfig(s, config);
  addEpilogueConfig(s.problem, config);

  KernelSource source;
  source.kernel_name = config.kernelName();
  source.cuda = assembleKernel({kernelSummary(s),
                                {"dtype", "work_split", "problem", "epilogue_ops", "mbarrier", "cp_async", "cluster", "tma", "tma_boxes", "wgmma_desc", "wgmma",
                                 "wgmma_shapes", "ldmatrix", "stmatrix", "stream_k", "block_scales"},
                                emitMatmulIndexFunctions(s),
                                &config,
                                printEpilogueFunction(s.problem),
                                {"fused_epilogue", "sm90_operands", "sm90_epilogue"},
                                "sm90_gemm"});
  source.launch.grid = {static_cast<uint32_t>(s.ctas()), 1, 1};
  source.launch.block = {static_cast<uint32_t>(p.threadsPerCta()), 1, 1};
  source.launch.cluster = {static_cast<uint32_t>(cm), 1, 1};
  source.launch.persistent = p.persistent;
  source.launch.dynamic_smem_bytes = static_cast<uint32_t>(p.smemBytes(prob));
  // Computing C^T, the kernel's A is the caller's B and its B the caller's A.
  // Every sm_90 kernel has one signature; what a configuration does not read is passed as zeros.
  source.args = {{"prob", ArgKind::Problem, "", {}, {}},
                 {"tmap_a", ArgKind::TensorMap, p.swap_ab ? "B" : "A", map_a.spec, map_a.padded},
                 {"tmap_b", ArgKind::TensorMap, p.swap_ab ? "A" : "B", map_b.spec, map_b.padded},
                 tma_store ? KernelArg{"tmap_c", ArgKind::TensorMap, "C", map_c, {}}
                           : unusedArg("tmap_c", ArgKind::TensorMap),
                 KernelArg{"C", ArgKind::Pointer, "C", {}, {}},
                 p.stream_k ? streamKWorkspace(s.device, s.ctas() * consumers, p.warp_tile.m * widest)
                            : unusedArg("workspace", ArgKind::Pointer),
                 aux_slab ? KernelArg{"tmap_aux", ArgKind::TensorMap, "aux", matrix_map(prob.aux_dtype), {}}
                          : unusedArg("tmap_aux", ArgKind::TensorMap),
                 c_slab ? KernelArg{"tmap_c_in", ArgKind::TensorMap, "c", matrix_map(prob.c_in_dtype), {}}
                        : unusedArg("tmap_c_in", ArgKind::TensorMap)};
  return source;
}

}  // namespace tilegrid::codegen
