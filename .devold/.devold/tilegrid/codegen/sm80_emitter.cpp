#include "tilegrid/codegen/sm80_emitter.h"

#include <algorithm>
#include <optional>

#include "tilegrid/codegen/cuda_printer.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/epilogue_function.h"
#include "tilegrid/codegen/index_functions.h"
#include "tilegrid/codegen/template.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/indexer.h"
#include "tilegrid/ir/ir.h"
#include "tilegrid/ir/memo.h"

namespace tilegrid::codegen {
namespace {

using scheduler::DType;
using scheduler::Major;



// Copies repeat with a stride. Where every iteration's piece is iteration 0's moved by constants, a
// thread computes its first piece once and steps by them (tilegrid/codegen/device/sm80_operands.cuh:
// tg_copy_cursor); otherwise each piece is indexed in full. The steps come from IR algebra: the copy
// domain's (mn, k) and the smem offset they reach must be affine in the iteration with constant
// coefficients (ir::affineIn, after ir::simplifyBits takes apart a swizzle whose bits the iteration
// does not touch), and every piece of every thread is then checked against them.
struct CopyPlan {
  bool derived = false;
  int64_t d_mn = 0, d_k = 0, d_dst = 0;  // per iteration: coordinate and smem offset steps
};

std::optional<int64_t> constantStepIn(const ir::Val& v, const std::string& var, const std::map<std::string, int64_t>& ranges) {
  const auto form = ir::affineIn(ir::simplifyBits(v, ranges), var);
  if (!form) return std::nullopt;
  return form->step.constValue();
}

CopyPlan deriveCopyPlanUncached(const ir::TensorDomain& copy, const ir::TensorDomain& smem, Major major) {
  ir::Indexer copy_indexer(copy);
  const ir::IndexResult coords =
      copy_indexer.logicalIndex({ir::Val::loopIndex("it"), ir::Val::loopIndex("tid"), ir::Val(0)});
  if (!coords.predicates.empty()) return {};
  const int64_t iterations = *copy.axis(0).extent.constValue();
  const int64_t threads = *copy.axis(1).extent.constValue();
  const std::map<std::string, int64_t> ranges = {{"it", iterations - 1}, {"tid", threads - 1}};
  // (mn, k) of a piece: rows run along MN for K-major operands, along K for MN-major ones.
  const ir::Val& mn = coords.indices[major == Major::K ? 0 : 1];
  const ir::Val& k = coords.indices[major == Major::K ? 1 : 0];
  const SmemOffsets offset(smem);
  const ir::Val dst = ir::substitute(offset.expression(), {{"x", mn}, {"y", k}, {"s", ir::Val(0)}});
  const auto d_mn = constantStepIn(mn, "it", ranges), d_k = constantStepIn(k, "it", ranges);
  const auto d_dst = constantStepIn(dst, "it", ranges);
  if (!d_mn || !d_k || !d_dst) return {};
  const CopyPlan plan{true, *d_mn, *d_k, *d_dst};
  // The algebra's postcondition, on every piece of every thread.
  ir::CompiledVal at_mn(mn, {"it", "tid"}), at_k(k, {"it", "tid"});
  for (int64_t tid = 0; tid < threads; ++tid) {
    const int64_t first[2] = {0, tid};
    const int64_t mn0 = at_mn(first), k0 = at_k(first), dst0 = offset(mn0, k0);
    for (int64_t it = 0; it < iterations; ++it) {
      const int64_t v[2] = {it, tid};
      const int64_t mn_it = at_mn(v), k_it = at_k(v);
      TG_INTERNAL_CHECK(mn_it == mn0 + it * plan.d_mn && k_it == k0 + it * plan.d_k &&
                        offset(mn_it, k_it) == dst0 + it * plan.d_dst)
          << copy.name() << ": the derived copy steps miss thread " << tid << "'s piece " << it;
    }
  }
  return plan;
}

// The derivation and its check over every piece depend only on the two domains (ir::Memo).
CopyPlan deriveCopyPlan(const ir::TensorDomain& copy, const ir::TensorDomain& smem, Major major) {
  static ir::Memo<CopyPlan> plans;
  return plans.get(ir::memoKey(copy, smem, major == Major::K ? "K" : "MN"),
                   [&] { return deriveCopyPlanUncached(copy, smem, major); });
}

// ldmatrix addressing. Each lane's row address for fragment f and k16 step kk is
// tg_smem_*(mn0 + 16 f + r, kk + c, stage) for a lane-dependent (r, c < 16). Hoisting all of them
// costs a register per (fragment, kk) and an add per ldmatrix. We check, on the Indexer's own offset
// expression, for every element of the tile, which of these structures holds, best first:
//  - Linear: fragments are a constant apart and stages are a constant apart, so a thread keeps one
//    offset per k16 step and every ldmatrix is that offset plus compile-time constants. Where,
//    moreover, every k16 step is step 0 XOR a constant (a swizzle whose XOR bits hold k), one
//    offset in all: ptxas otherwise recomputes the per-step registers it cannot keep, swizzle and
//    all, every K tile (about 1.3% at 4096^3 TN; docs/findings.md, *sm_80 kernels*).
//  - Add / Xor: every k16 step is step 0 combined with one constant, so a thread keeps one base per
//    fragment.
// If none holds, the kernel calls tg_smem_* for every access.
enum class FragmentMode { Full, Linear, Xor, Add };

struct FragmentAddressing {
  FragmentMode mode = FragmentMode::Full;
  int64_t stage_size = 0;
  int64_t fragment_step = 0;        // Linear: offset between fragments 16 rows apart
  std::vector<int64_t> step_delta;  // Xor / Add: one per k16 step
  int64_t xor_step = 0;             // Linear: step kk is step 0 XOR kk * xor_step (0: it is not)
  int64_t k_steps = 0;              // k16 steps in a K tile
};

// Each structure is derived by algebra on the tile's offset expression (tilegrid/ir/bits.h, tilegrid/ir/affine.h):
// substituting the row or column as a thread-dependent part plus a compile-time step, the swizzle's
// XOR is taken apart where the bits involved are provably separate, and what remains must be affine
// (or XOR-affine) in the step with a constant coefficient. The ranges below are those of the tile.
using Ranges = std::map<std::string, int64_t>;

// The step s with at(x, y + 16 kk) == at(x, y) ^ (kk * s) for every element and k16 step, or 0.
int64_t stepXor(const ir::Val& tile0, int64_t rows, int64_t bk) {
  if (bk < 32) return 0;
  const ir::Val yl = ir::Val::loopIndex("yl"), kk = ir::Val::loopIndex("kk");
  const Ranges ranges = {{"x", rows - 1}, {"yl", 15}, {"kk", bk / 16 - 1}};
  const ir::Val e = ir::simplifyBits(ir::substitute(tile0, {{"y", yl + kk * 16}}), ranges);
  const auto split = ir::xorSplit(e, "kk", ranges);
  if (!split) return 0;
  const auto form = ir::affineIn(split->part, "kk");
  if (!form || form->base.constValue() != 0 || !form->step.constValue()) return 0;
  return *form->step.constValue();
}

// How k16 step `kk` moves every element of the tile: at(x, y + 16 kk) == at(x, y) + d (add) or
// ^ d (xor) for y < 16, with t in {0, 1} standing for "at step kk or at step 0".
std::optional<int64_t> stepDelta(const ir::Val& tile0, int64_t rows, int64_t kk, bool use_xor) {
  const ir::Val yl = ir::Val::loopIndex("yl"), t = ir::Val::loopIndex("t");
  const Ranges ranges = {{"x", rows - 1}, {"yl", 15}, {"t", 1}};
  const ir::Val e = ir::simplifyBits(ir::substitute(tile0, {{"y", yl + t * (16 * kk)}}), ranges);
  if (!use_xor) {
    const auto form = ir::affineIn(e, "t");
    if (!form) return std::nullopt;
    return form->step.constValue();
  }
  const auto split = ir::xorSplit(e, "t", ranges);
  if (!split) return std::nullopt;
  const ir::Bindings at0{{"t", 0}}, at1{{"t", 1}};
  if (ir::evaluate(split->part, at0) != 0) return std::nullopt;
  return ir::evaluate(split->part, at1);
}

// The algebra's postcondition, on every element of every stage of the tile: each ldmatrix address
// the structure produces is the tile's offset.
void checkFragmentAddressing(const SmemOffsets& at, const FragmentAddressing& a, int64_t bk, const std::string& name) {
  for (int64_t st = 0; st < at.stages(); ++st) {
    for (int64_t x = 0; x < at.rows(); ++x) {
      for (int64_t y = 0; y < bk; ++y) {
        const int64_t kk = y / 16;
        int64_t derived = 0;
        switch (a.mode) {
          case FragmentMode::Linear:
            derived = st * a.stage_size + (x / 16) * a.fragment_step +
                      (a.xor_step > 0 ? at(x % 16, y % 16, 0) ^ (kk * a.xor_step) : at(x % 16, y, 0));
            break;
          case FragmentMode::Add: derived = st * a.stage_size + at(x, y % 16, 0) + a.step_delta[kk]; break;
          case FragmentMode::Xor: derived = st * a.stage_size + (at(x, y % 16, 0) ^ a.step_delta[kk]); break;
          case FragmentMode::Full: return;
        }
        TG_INTERNAL_CHECK(derived == at(x, y, st)) << name << ": the derived ldmatrix addressing misses element (" << x
                                                   << ", " << y << ") of stage " << st;
      }
    }
  }
}

FragmentAddressing deriveFragmentAddressingByAlgebra(const ir::TensorDomain& tile, int64_t bk) {
  const SmemOffsets at(tile);
  const int64_t rows = at.rows(), stages = at.stages();
  FragmentAddressing out;
  // Stages a constant apart.
  const Ranges ranges = {{"x", rows - 1}, {"y", bk - 1}, {"s", stages - 1}};
  const auto along_stage = ir::affineIn(ir::simplifyBits(at.expression(), ranges), "s");
  if (!along_stage || !along_stage->step.constValue()) return {};
  out.stage_size = *along_stage->step.constValue();
  const ir::Val tile0 = along_stage->base;  // stage 0, over x and y
  // Linear: fragments 16 rows apart a constant apart, x = xl + 16 f.
  if (rows > 16 && rows % 16 == 0) {
    const ir::Val xl = ir::Val::loopIndex("xl"), f = ir::Val::loopIndex("f");
    const Ranges fragments = {{"xl", 15}, {"f", rows / 16 - 1}, {"y", bk - 1}};
    const auto along_f =
        ir::affineIn(ir::simplifyBits(ir::substitute(tile0, {{"x", xl + f * 16}}), fragments), "f");
    if (along_f && along_f->step.constValue()) {
      out.mode = FragmentMode::Linear;
      out.fragment_step = *along_f->step.constValue();
      out.xor_step = stepXor(tile0, rows, bk);
      out.k_steps = bk / 16;
      return out;
    }
  }
  // Add before Xor: where both hold (steps above the swizzle bits) an add folds into the address.
  for (FragmentMode mode : {FragmentMode::Add, FragmentMode::Xor}) {
    std::vector<int64_t> deltas;
    for (int64_t kk = 0; kk * 16 < bk; ++kk) {
      const auto d = stepDelta(tile0, rows, kk, mode == FragmentMode::Xor);
      if (!d) break;
      deltas.push_back(*d);
    }
    if (static_cast<int64_t>(deltas.size()) * 16 >= bk) {
      out.mode = mode;
      out.step_delta = deltas;
      return out;
    }
  }
  return {};
}

// The derivation and its check over every element depend only on the tile (ir::Memo).
FragmentAddressing deriveFragmentAddressing(const ir::TensorDomain& tile, int64_t bk) {
  static ir::Memo<FragmentAddressing> derived;
  return derived.get(ir::memoKey(tile, bk), [&] {
    FragmentAddressing out = deriveFragmentAddressingByAlgebra(tile, bk);
    checkFragmentAddressing(SmemOffsets(tile), out, bk, tile.name());
    return out;
  });
}

// tg_gmem_a_steps / tg_gmem_b_steps: the steps of the operand's linear offset, for the copies that
// step one pointer (tg_copy_cursor).
std::string gmemStepFunctions(const scheduler::MatmulSchedule& s) {
  std::string out;
  for (const auto& [name, gmem] : {std::pair{"tg_gmem_a_steps", &s.gmem_a}, std::pair{"tg_gmem_b_steps", &s.gmem_b}}) {
    const std::optional<GmemSteps> steps = gmemSteps(*gmem);
    TG_INTERNAL_CHECK(steps.has_value()) << gmem->name() << ": the operand's offset is not linear in (mn, k)";
    out += emitIndexFunction(name, std::string("elements from one ") + (gmem == &s.gmem_a ? "m" : "n") + " and one k of " +
                                       gmem->name() + " to the next",
                             {}, {{"mn_step", steps->mn_step, "long long"}, {"k_step", steps->k_step, "long long"}},
                             s.shapeLimits());
  }
  return out;
}

// The configuration of one operand: its copy and its ldmatrix addressing.
void addOperandConfig(ConfigBlock& config, const char* group, const scheduler::MatmulSchedule& s, char operand) {
  const bool is_a = operand == 'a';
  const auto& p = s.params;
  const Major major = is_a ? scheduler::majorOfA(s.problem.layout) : scheduler::majorOfB(s.problem.layout);
  const ir::TensorDomain& copy = is_a ? s.copy_a : s.copy_b;
  const ir::TensorDomain& smem = is_a ? s.smem_a : s.smem_b;
  const CopyPlan plan = deriveCopyPlan(copy, smem, major);
  const FragmentAddressing frag = deriveFragmentAddressing(smem, p.cta_tile.k);
  const int64_t elem_bytes = scheduler::bytes(is_a ? s.problem.a_dtype : s.problem.b_dtype);
  // One address in all where the XOR of every k16 step stays inside the swizzle's 128 bytes.
  const bool one_row = frag.mode == FragmentMode::Linear && frag.xor_step > 0 &&
                       (frag.k_steps - 1) * frag.xor_step * elem_bytes < 128;
  const int fragment_mode = frag.mode == FragmentMode::Linear ? 1 : frag.mode == FragmentMode::Xor ? 2
                            : frag.mode == FragmentMode::Add  ? 3 : 0;
  config.flag("IS_A", is_a, "", group)
      .flag("K_MAJOR", major == Major::K, "", group)
      .value("STAGE_ELEMS", (is_a ? p.cta_tile.m : p.cta_tile.n) * p.cta_tile.k, "", group)
      .value("VEC", is_a ? p.vec_a : p.vec_b, "elements a copy moves at once (the operand's alignment)", group)
      .value("ITERS", *copy.axis(0).extent.constValue(), "16-byte pieces a thread copies a K tile", group)
      .flag("STEPPED", plan.derived, "every piece of a thread is its first moved by (D_MN, D_K), D_DST in smem", group)
      .value("D_MN", plan.d_mn, "", group)
      .value("D_K", plan.d_k, "", group)
      .value("D_DST", plan.d_dst, "", group)
      .value("FRAGMENTS", fragment_mode, "ldmatrix addressing: 0 full, 1 linear, 2 xor, 3 add (TG_FRAGMENTS_*)", group)
      .value("STAGE_SIZE", frag.stage_size, "elements from one stage to the next", group)
      .value("FRAGMENT_STEP", frag.fragment_step, "linear: elements from one 16-row fragment to the next", group)
      .value("XOR_STEP_BYTES", one_row ? frag.xor_step * elem_bytes : 0, "linear: k16 step kk is step 0 ^ kk * this",
             group)
      .value("FRAGS", is_a ? p.warp_tile.m / 16 : p.warp_tile.n / 16, "ldmatrix x4 fragments a warp tile holds", group);
  if (frag.mode == FragmentMode::Add || frag.mode == FragmentMode::Xor) {
    config.array("STEP_DELTA", frag.step_delta, "xor / add: k16 step kk's change from step 0, in elements", group);
  }
}

}  // namespace

KernelSource emitSm80(const scheduler::MatmulSchedule& s) {
  const auto& p = s.params;
  const auto& prob = s.problem;
  TG_USER_CHECK(p.arch == scheduler::Arch::Sm80) << "the sm_80 emitter needs an sm_80 schedule, got " << p.toString();
  TG_USER_CHECK(p.stages >= 2) << "sm_80 kernels pipeline with at least 2 stages, got " << p.stages;
  TG_USER_CHECK(p.warp_tile.n % 16 == 0 && p.warp_tile.m % 16 == 0)
      << "sm_80 warp tiles must be multiples of 16, got " << p.warp_tile.toString();
  TG_USER_CHECK(prob.a_dtype != DType::FP32) << "sm_80 kernels take bf16 or fp16 inputs";
  // The XOR form of the ldmatrix addresses needs both tiles 128-byte aligned: smem_b follows the A stages.
  TG_INTERNAL_CHECK(p.stages * p.cta_tile.m * p.cta_tile.k * scheduler::bytes(prob.a_dtype) % 128 == 0)
      << "the A stages of " << p.toString() << " do not end on 128 bytes";
  const bool staged = p.stagedEpilogue(prob);
  TG_INTERNAL_CHECK(!staged || (p.epilogue_tile.m == 16 * p.mathGroups() && p.epilogue_tile.n == p.warp_tile.n))
      << "the sm_80 epilogue stages a 16-row slab per warp, got " << p.epilogue_tile.toString();
  const scheduler::MatmulProblem kernel_problem = s.kernelProblem();
  ConfigBlock config = commonConfig(s);
  config.value("FIXED_K", fixedSize(s, kernel_problem.k))
      .value("FIXED_BATCH", fixedSize(s, kernel_problem.batch))
      .value("FIXED_BATCH_STRIDE_A", fixedSize(s, s.operandLayout('a').batch_stride))
      .value("FIXED_BATCH_STRIDE_B", fixedSize(s, s.operandLayout('b').batch_stride))
      .value("TM", p.warp_tile.m, "a warp's tile")
      .value("TN", p.warp_tile.n)
      .flag("PERSISTENT", p.persistent, "the grid is smaller than the work units: each CTA walks several")
      .flag("MMA_BY_COLUMNS", p.mma_order == scheduler::MmaOrder::Columns, "mma order: column by column, or row by row")
      .flag("STAGED_EPILOGUE", staged, "C goes through shared memory in 16-byte stores")
      .flag("PAIRED_C", prob.align_c >= 2, "direct stores write pairs where C is 4-byte aligned");
  addOperandConfig(config, "operand_a", s, 'a');
  addOperandConfig(config, "operand_b", s, 'b');
  addEpilogueConfig(s.problem, config);
  KernelSource source;
  source.kernel_name = config.kernelName();
  source.cuda = assembleKernel({kernelSummary(s),
                                {"dtype", "work_split", "problem", "epilogue_ops", "cp_async", "sm80"},
                                emitMatmulIndexFunctions(s) + gmemStepFunctions(s),
                                &config,
                                printEpilogueFunction(s.problem),
                                {"fused_epilogue", "sm80_operands", "sm80_epilogue"},
                                "sm80_gemm"});
  source.launch.grid = {static_cast<uint32_t>(s.ctas()), 1, 1};
  source.launch.persistent = p.persistent;
  source.launch.block = {static_cast<uint32_t>(p.threadsPerCta()), 1, 1};
  source.launch.dynamic_smem_bytes = static_cast<uint32_t>(p.smemBytes(prob));
  // A padded operand is read from the copy the runtime makes before the launch.
  source.args = {{"prob", ArgKind::Problem, "", {}, {}},
                 {"A", ArgKind::Pointer, "A", {}, paddedCopy(s, 'a')},
                 {"B", ArgKind::Pointer, "B", {}, paddedCopy(s, 'b')},
                 {"C", ArgKind::Pointer, "C", {}, {}}};
  return source;
}

}  // namespace tilegrid::codegen
