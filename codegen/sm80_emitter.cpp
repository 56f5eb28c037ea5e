#include "codegen/sm80_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <tuple>

#include "codegen/cuda_dtype.h"
#include "codegen/cuda_printer.h"
#include "codegen/device_helpers.h"
#include "codegen/emit_common.h"
#include "codegen/index_functions.h"
#include "codegen/template.h"
#include "ir/error.h"
#include "ir/indexer.h"
#include "ir/ir.h"

namespace tilegrid::codegen {
namespace {

using scheduler::DType;
using scheduler::Major;



// Moves one 16-byte piece (8 elements, `avail` of them inside the matrix) from src to dst.
std::string moveCode(int64_t vec) {
  if (vec == 8) return "tg_cp_async<16>(dst, src, avail * 2);";
  if (vec >= 2) {
    // Narrower asynchronous copies where the leading dimension is only vec-aligned.
    return fmt::format(
        "#pragma unroll\n"
        "        for (int part = 0; part < 8; part += {0}) {{\n"
        "          const int part_avail = min(max(avail - part, 0), {0});\n"
        "          tg_cp_async<{1}>(dst + part, part_avail > 0 ? src + part : src, part_avail * 2);\n"
        "        }}",
        vec, vec * 2);
  }
  // 2-byte alignment: cp.async copies at least 4 bytes, so gather the piece by hand into registers
  // (pairs of elements per word: an array of shorts would live on the stack) and store it to shared
  // memory as one 16-byte write.
  return "const unsigned short* src16 = reinterpret_cast<const unsigned short*>(src);\n"
         "        tg_u32 word[4];\n"
         "#pragma unroll\n"
         "        for (int e = 0; e < 8; e += 2) {\n"
         "          const tg_u32 lo = e < avail ? src16[e] : 0u, hi = e + 1 < avail ? src16[e + 1] : 0u;\n"
         "          word[e / 2] = lo | (hi << 16);\n"
         "        }\n"
         "        *reinterpret_cast<uint4*>(dst) = make_uint4(word[0], word[1], word[2], word[3]);";
}

// Copies repeat with a stride. When every iteration's piece is iteration 0's moved by a constant
// (checked on the Indexer's tg_copy_x and tg_smem_x expressions for every thread), a thread computes
// its first piece once and steps by constants; otherwise each piece is indexed in full.
struct CopyPlan {
  bool derived = false;
  int64_t d_mn = 0, d_k = 0, d_dst = 0;  // per iteration: coordinate and smem offset steps
  // Global offsets linear in (mn, k) (gmemSteps): a thread keeps one source pointer and steps it by
  // the steps tg_gmem_x_steps computes (constants, or from leading dimensions read at launch).
  bool gmem_affine = false;
};


CopyPlan deriveCopyPlan(const ir::TensorDomain& copy, const ir::TensorDomain& smem, const ir::TensorDomain& gmem,
                        Major major) {
  ir::Indexer copy_indexer(copy);
  const ir::IndexResult coords =
      copy_indexer.logicalIndex({ir::Val::loopIndex("it"), ir::Val::loopIndex("tid"), ir::Val(0)});
  if (!coords.predicates.empty()) return {};
  ir::CompiledVal row(coords.indices[0], {"it", "tid"}), col(coords.indices[1], {"it", "tid"});
  const SmemOffsets offset(smem);
  const int64_t iterations = *copy.axis(0).extent.constValue();
  const int64_t threads = *copy.axis(1).extent.constValue();
  auto at = [](const ir::CompiledVal& f, int64_t a, int64_t b) {
    const int64_t v[2] = {a, b};
    return f(v);
  };
  // (mn, k) of a piece: rows run along MN for K-major operands, along K for MN-major ones.
  auto mnk = [&](int64_t it, int64_t tid) {
    const int64_t r = at(row, it, tid), c = at(col, it, tid);
    return major == Major::K ? std::pair{r, c} : std::pair{c, r};
  };
  CopyPlan plan;
  const auto [mn0, k0] = mnk(0, 0);
  if (iterations > 1) {
    const auto [mn1, k1] = mnk(1, 0);
    plan.d_mn = mn1 - mn0;
    plan.d_k = k1 - k0;
    plan.d_dst = offset(mn1, k1) - offset(mn0, k0);
  }
  for (int64_t tid = 0; tid < threads; ++tid) {
    const auto [bmn, bk] = mnk(0, tid);
    const int64_t base = offset(bmn, bk);
    for (int64_t it = 0; it < iterations; ++it) {
      const auto [xmn, xk] = mnk(it, tid);
      if (xmn != bmn + it * plan.d_mn || xk != bk + it * plan.d_k) return {};
      if (offset(xmn, xk) != base + it * plan.d_dst) return {};
    }
  }
  plan.derived = true;
  plan.gmem_affine = gmemSteps(gmem).has_value();
  return plan;
}

// The copy of one operand's K tile into `stage`: each thread takes the 16-byte pieces tg_copy_x
// assigns it, finds how many of the 8 elements lie inside the matrix, and moves them. Rows of an
// operand's smem tile run along MN when it is K-major, along K otherwise. The copies read the tile
// bound to load_m0, load_n0, load_A and load_B, which a persistent CTA rebinds for each unit.
struct CopyCode {
  std::string setup;  // per thread, once
  std::string bind;   // per tile, after load_* are set
  std::string loop;   // per K tile
};

CopyCode copyLoop(char operand, Major major, int64_t iterations, int64_t vec, const CopyPlan& plan) {
  const bool is_a = operand == 'a';
  const std::string mn = is_a ? "m" : "n";
  const std::string MN = is_a ? "M" : "N";
  const std::string origin = is_a ? "load_m0" : "load_n0";
  const std::string base = is_a ? "load_A" : "load_B";
  // (row, col) of the copy tile -> (mn, k) of the operand.
  const std::string from_row = major == Major::K ? "row" : "col";
  const std::string from_col = major == Major::K ? "col" : "row";
  // `checked` is false for K tiles of tiles wholly inside the matrix (the template's load_tile), and the
  // `% == 0` terms are compile-time: interior copies keep no predicate.
  const std::string tile_mn = is_a ? "BM" : "BN";
  const std::string avail =
      major == Major::K
          ? fmt::format("const int avail = !checked ? 8 : ({2} % {3} == 0 || {0} + {1} < {2}) ? (K % BK == 0 ? 8 : min(max(K - (k0 + k), 0), 8)) : 0;",
                        origin, mn, MN, tile_mn)
          : fmt::format("const int avail = !checked ? 8 : (K % BK == 0 || k0 + k < K) ? ({2} % {3} == 0 ? 8 : min(max({2} - ({0} + {1}), 0), 8)) : 0;",
                        origin, mn, MN, tile_mn);
  const std::string src = fmt::format("const tg_in_t* src = {0} + (avail > 0 ? tg_gmem_{1}(prob, {2} + {3}, k0 + k) : 0);",
                                      base, operand, origin, mn);
  if (plan.derived) {
    std::string setup = fmt::format(
        "int copy_{0}_mn, copy_{0}_k;\n"
        "  bool copy_{0}_ok;\n"
        "  {{\n"
        "    int row, col;\n"
        "    tg_copy_{0}(0, threadIdx.x, row, col, copy_{0}_ok);\n"
        "    copy_{0}_mn = {1};\n"
        "    copy_{0}_k = {2};\n"
        "  }}\n"
        "  const int copy_{0}_dst = tg_smem_{0}(copy_{0}_mn, copy_{0}_k, 0);",
        operand, from_row, from_col);
    // Whole 16-byte pieces go to a 32-bit shared address: a stage and an iteration are then constants
    // added to one register (H100, 4096^3 TN, same-process A/B: +0.6%). Narrower pieces address
    // their parts through the pointer.
    const bool whole_pieces = vec == 8;
    if (whole_pieces) {
      setup += fmt::format("\n  const tg_u32 copy_{0}_dst_addr = tg_smem_addr(smem_{0} + copy_{0}_dst);", operand);
    }
    const std::string dst = fmt::format(
        fmt::runtime(whole_pieces ? "const tg_u32 dst = copy_{0}_dst_addr + (stage * {1} + it * {2}) * sizeof(tg_in_t);"
                                  : "tg_in_t* dst = smem_{0} + stage * {1} + copy_{0}_dst + it * {2};"),
        operand, is_a ? "A_STAGE_ELEMS" : "B_STAGE_ELEMS", plan.d_dst);
    std::string src_code = src;
    std::string bind;
    if (plan.gmem_affine) {
      // tg_gmem_{0}(mn, k) == mn * mn_step + k * k_step (gmemSteps, by IR algebra); 64-bit throughout.
      setup += fmt::format(
          "\n  long long copy_{0}_mn_step, copy_{0}_k_step;\n"
          "  tg_gmem_{0}_steps(prob, copy_{0}_mn_step, copy_{0}_k_step);\n"
          "  const long long copy_{0}_it_step = {1} * copy_{0}_mn_step + {2} * copy_{0}_k_step;\n"
          "  const tg_in_t* copy_{0}_src = nullptr;",
          operand, plan.d_mn, plan.d_k);
      bind = fmt::format(
          "copy_{0}_src = {1} + static_cast<long long>({2} + copy_{0}_mn) * copy_{0}_mn_step + "
          "static_cast<long long>(copy_{0}_k) * copy_{0}_k_step;",
          operand, base, origin);
      src_code = fmt::format(
          "const tg_in_t* src = avail > 0 ? copy_{0}_src + static_cast<long long>(k0) * copy_{0}_k_step + it * "
          "copy_{0}_it_step : {1};",
          operand, base);
    }
    const std::string loop = fmt::format(
        "if (copy_{0}_ok) {{\n"
        "#pragma unroll\n"
        "      for (int it = 0; it < {1}; ++it) {{\n"
        "        const int {2} = copy_{0}_mn + it * {3}, k = copy_{0}_k + it * {4};\n"
        "        {5}\n"
        "        {6}\n"
        "        {7}\n"
        "        {8}\n"
        "      }}\n"
        "    }}",
        operand, iterations, mn, plan.d_mn, plan.d_k, dst, avail, src_code, moveCode(vec));
    return {setup, bind, loop};
  }
  const std::string loop = fmt::format(
      "#pragma unroll\n"
      "    for (int it = 0; it < {0}; ++it) {{\n"
      "      int row, col;\n"
      "      bool ok;\n"
      "      tg_copy_{1}(it, threadIdx.x, row, col, ok);\n"
      "      if (ok) {{\n"
      "        const int {2} = {3}, k = {4};\n"
      "        tg_in_t* dst = smem_{1} + tg_smem_{1}({2}, k, stage);\n"
      "        {5}\n"
      "        {6}\n"
      "        {7}\n"
      "      }}\n"
      "    }}",
      iterations, operand, mn, from_row, from_col, avail, src, moveCode(vec));
  return {"", "", loop};
}


// ldmatrix addressing. Each lane's row address for fragment f and k16 step kk is
// tg_smem_*(mn0 + 16 f + r, kk + c, stage) for a lane-dependent (r, c < 16). Hoisting all of them
// costs a register per (fragment, kk) and an add per ldmatrix. We check, on the Indexer's own offset
// expression, for every element of the tile, which of these structures holds, best first:
//  - Linear: fragments are a constant apart and stages are a constant apart, so a thread keeps one
//    offset per k16 step and every ldmatrix is that offset plus compile-time constants. Where,
//    moreover, every k16 step is step 0 XOR a constant (a swizzle whose XOR bits hold k), one
//    offset in all: ptxas otherwise recomputes the per-step registers it cannot keep, swizzle and
//    all, every K tile (H100, 4096^3 TN, same-process A/B: 501.5-504.7 -> 508.0-511.1 TFLOP/s).
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

// Each structure is derived by algebra on the tile's offset expression (ir/bits.h, ir/affine.h):
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

FragmentAddressing deriveFragmentAddressing(const ir::TensorDomain& tile, int64_t bk) {
  FragmentAddressing out = deriveFragmentAddressingByAlgebra(tile, bk);
  checkFragmentAddressing(SmemOffsets(tile), out, bk, tile.name());
  return out;
}

std::string joinInts(const std::vector<int64_t>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text;
}

// The setup and the ldmatrix statement of one operand. `lane` is the lane's (mn, k) declaration
// for fragment `frag` with {f} standing for the fragment index.
struct FragmentCode {
  std::string setup, load;
};

FragmentCode fragmentCode(char operand, const FragmentAddressing& addr, const std::string& lane, const char* load,
                          const char* dest, int64_t elem_bytes) {
  const std::string X = operand == 'a' ? "A" : "B";
  const std::string frag = operand == 'a' ? "mi" : "nj";
  const std::string count = operand == 'a' ? "MI" : "NI / 2";
  const std::string coords = operand == 'a' ? "m, k" : "n, k";
  switch (addr.mode) {
    case FragmentMode::Linear: {
      // Shared-space byte addresses: a stage and a fragment are adds of constants to the k16 step's
      // address, which ptxas folds into the ldmatrix. XOR on the address equals XOR on the offset
      // when the tile base is aligned above the XOR's bits; the template aligns smem_a to 128 bytes
      // and every stage of A is a multiple of 128 bytes long.
      const std::string lane0 = fmt::format(fmt::runtime(lane), fmt::arg("f", "0"), fmt::arg("kk", "kk * 16"));
      const std::string consts = fmt::format(
          "constexpr tg_u32 {0}_STAGE_BYTES = {1} * sizeof(tg_in_t), {0}_FRAGMENT_BYTES = {2} * sizeof(tg_in_t);\n  ",
          X, addr.stage_size, addr.fragment_step);
      // The XOR delta kk * xor_step is a constant of the unrolled step. (Read from a constexpr array
      // instead, NVVM turned the XOR into adds and ptxas took 3 more registers.)
      if (addr.xor_step > 0 && (addr.k_steps - 1) * addr.xor_step * elem_bytes < 128) {
        return {consts + fmt::format("tg_u32 {0}_row;\n"
                                     "  {{\n    constexpr int kk = 0;\n    {1}\n"
                                     "    {0}_row = smem_{0}_addr + tg_smem_{0}({2}, 0) * sizeof(tg_in_t);\n  }}",
                                     operand, lane0, coords),
                fmt::format("{}({}, ({}_row ^ kk / 16 * {}) + stage * {}_STAGE_BYTES + {} * {}_FRAGMENT_BYTES);", load,
                            dest, operand, addr.xor_step * elem_bytes, X, frag, X)};
      }
      return {consts + fmt::format("tg_u32 {0}_row[BK / 16];\n"
                                   "#pragma unroll\n"
                                   "  for (int kk = 0; kk < BK / 16; ++kk) {{\n    {1}\n"
                                   "    {0}_row[kk] = smem_{0}_addr + tg_smem_{0}({2}, 0) * sizeof(tg_in_t);\n  }}",
                                   operand, lane0, coords),
              fmt::format("{}({}, {}_row[kk / 16] + stage * {}_STAGE_BYTES + {} * {}_FRAGMENT_BYTES);", load, dest,
                          operand, X, frag, X)};
    }
    case FragmentMode::Add: {
      std::vector<int64_t> step_bytes;
      for (int64_t d : addr.step_delta) step_bytes.push_back(d * elem_bytes);
      return {fmt::format("constexpr tg_u32 {0}_STAGE_BYTES = {1} * sizeof(tg_in_t);\n"
                          "  constexpr tg_u32 {0}_STEP_BYTES[BK / 16] = {{{2}}};\n"
                          "  tg_u32 {3}_base[{4}];\n"
                          "#pragma unroll\n"
                          "  for (int {5} = 0; {5} < {4}; ++{5}) {{\n    {6}\n"
                          "    {3}_base[{5}] = smem_{3}_addr + tg_smem_{3}({7}, 0) * sizeof(tg_in_t);\n  }}",
                          X, addr.stage_size, joinInts(step_bytes), operand, count, frag,
                          fmt::format(fmt::runtime(lane), fmt::arg("f", frag), fmt::arg("kk", "0")), coords),
              fmt::format("{}({}, {}_base[{}] + {}_STEP_BYTES[kk / 16] + stage * {}_STAGE_BYTES);", load, dest, operand,
                          frag, X, X)};
    }
    case FragmentMode::Xor:
      return {fmt::format("constexpr int {0}_STAGE = {1};\n"
                          "  constexpr int {0}_STEP[BK / 16] = {{{2}}};\n"
                          "  int {3}_base[{4}];\n"
                          "#pragma unroll\n"
                          "  for (int {5} = 0; {5} < {4}; ++{5}) {{\n    {6}\n    {3}_base[{5}] = tg_smem_{3}({7}, 0);\n  }}",
                          X, addr.stage_size, joinInts(addr.step_delta), operand, count, frag,
                          fmt::format(fmt::runtime(lane), fmt::arg("f", frag), fmt::arg("kk", "0")), coords),
              fmt::format("{0}({1}, smem_{2} + stage * {3}_STAGE + ({2}_base[{4}] ^ {3}_STEP[kk / 16]));", load, dest,
                          operand, X, frag)};
    case FragmentMode::Full: break;
  }
  return {"", fmt::format(fmt::runtime(lane), fmt::arg("f", frag), fmt::arg("kk", "kk")) + "\n        " + load + "(" +
                  dest + ", smem_" + operand + " + tg_smem_" + operand + "(" + coords + ", stage));"};
}


// The epilogue. Each thread holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) and +1 of every
// 16x8 mma tile. Stored straight from registers that is 8-row patches of 16 bytes, four bytes a
// lane, and the store queue backs up. When the schedule stages the epilogue, each warp writes 16
// rows of its tile at a time into its own slab of tg_smem_epilogue (swizzled, so the 4-byte writes
// are conflict-free) and reads them back as 16-byte row chunks: C is written in full 16-byte stores,
// an eighth of the instructions. The slabs sit apart from the operand stages, so nothing waits for
// the other warps or for the copies of a persistent CTA's next tile.
std::string epilogueCode(const scheduler::MatmulSchedule& s) {
  const auto& p = s.params;
  const auto& prob = s.problem;
  if (!p.stagedEpilogue(prob)) {
    return "// Epilogue: straight from the accumulators to C.\n"
           "#pragma unroll\n"
           "    for (int mi = 0; mi < MI; ++mi)\n"
           "#pragma unroll\n"
           "      for (int ni = 0; ni < NI; ++ni)\n"
           "#pragma unroll\n"
           "        for (int half = 0; half < 2; ++half) {\n"
           "          const int m = m0 + wm0 + mi * 16 + lane / 4 + half * 8;\n"
           "          const int n = n0 + wn0 + ni * 8 + (lane % 4) * 2;\n"
           "          if (m >= M) continue;\n"
           "          const float v0 = acc[mi][ni][2 * half], v1 = acc[mi][ni][2 * half + 1];\n"
           "          " +
           storeCode(prob.out_dtype, prob.align_c >= 2) + "\n        }";
  }
  TG_INTERNAL_CHECK(p.epilogue_tile.m == 16 * p.mathGroups() && p.epilogue_tile.n == p.warp_tile.n)
      << "the sm_80 epilogue stages a 16-row slab per warp, got " << p.epilogue_tile.toString();
  return "// Epilogue: 16-row slabs of the warp tile through its own slab of shared memory, 16-byte stores to C.\n"
         "    {\n"
         "      tg_out_t* smem_c = reinterpret_cast<tg_out_t*>(smem_b + STAGES * B_STAGE_ELEMS);\n"
         "      const int slab = (threadIdx.x / 32) * 16;\n"
         "      constexpr int VEC = 16 / sizeof(tg_out_t), ROW_CHUNKS = TN / VEC, ROWS = 32 / ROW_CHUNKS;\n"
         "#pragma unroll\n"
         "      for (int mi = 0; mi < MI; ++mi) {\n"
         "#pragma unroll\n"
         "        for (int ni = 0; ni < NI; ++ni)\n"
         "#pragma unroll\n"
         "          for (int half = 0; half < 2; ++half) {\n"
         "            const int r = lane / 4 + half * 8, c = ni * 8 + (lane % 4) * 2;\n"
         "            " +
         pairStore(prob.out_dtype, "smem_c + tg_smem_epilogue(slab + r, c, 0)", "acc[mi][ni][2 * half]",
                   "acc[mi][ni][2 * half + 1]") +
         "\n          }\n"
         "        __syncwarp();\n"
         "#pragma unroll\n"
         "        for (int pass = 0; pass < 16 / ROWS; ++pass) {\n"
         "          const int r = pass * ROWS + lane / ROW_CHUNKS, c = (lane % ROW_CHUNKS) * VEC;\n"
         "          const uint4 v = *reinterpret_cast<const uint4*>(smem_c + tg_smem_epilogue(slab + r, c, 0));\n"
         "          const int m = m0 + wm0 + mi * 16 + r, n = n0 + wn0 + c;\n"
         "          // N is a multiple of VEC here: a chunk lies wholly inside C or wholly outside.\n"
         "          if (m < M && n < N) *reinterpret_cast<uint4*>(C + tg_gmem_c(prob, m, n)) = v;\n"
         "        }\n"
         "        __syncwarp();  // the next slab overwrites what other lanes just read\n"
         "      }\n"
         "    }";
}

// tg_gmem_a_steps / tg_gmem_b_steps: the steps of the operand's linear offset, for the copies that
// step one pointer (CopyPlan::gmem_affine).
std::string gmemStepFunctions(const scheduler::MatmulSchedule& s) {
  std::string out;
  for (const auto& [name, gmem] : {std::pair{"tg_gmem_a_steps", &s.gmem_a}, std::pair{"tg_gmem_b_steps", &s.gmem_b}}) {
    const std::optional<GmemSteps> steps = gmemSteps(*gmem);
    if (!steps) continue;
    out += emitIndexFunction(name, std::string("elements from one ") + (gmem == &s.gmem_a ? "m" : "n") + " and one k of " +
                                       gmem->name() + " to the next",
                             {}, {{"mn_step", steps->mn_step, "long long"}, {"k_step", steps->k_step, "long long"}},
                             s.shapeLimits());
  }
  return out;
}

}  // namespace


KernelSource emitSm80(const scheduler::MatmulSchedule& s) {
  const auto& p = s.params;
  const auto& prob = s.problem;
  TG_USER_CHECK(p.arch == scheduler::Arch::Sm80) << "the sm_80 emitter needs an sm_80 schedule, got " << p.toString();
  TG_USER_CHECK(p.stages >= 2) << "sm_80 kernels pipeline with at least 2 stages, got " << p.stages;
  TG_USER_CHECK(p.warp_tile.n % 16 == 0 && p.warp_tile.m % 16 == 0)
      << "sm_80 warp tiles must be multiples of 16, got " << p.warp_tile.toString();
  const Major major_a = scheduler::majorOfA(prob.layout);
  const Major major_b = scheduler::majorOfB(prob.layout);
  TG_USER_CHECK(prob.a_dtype != DType::FP32) << "sm_80 kernels take bf16 or fp16 inputs";
  // Lane -> (row, k) of ldmatrix x4 for fragment {f} at k16 step {kk}, fixed by the instruction.
  const std::string lane_a =
      major_a == Major::K
          ? "const int m = wm0 + {f} * 16 + quad_row + (quad % 2) * 8, k = {kk} + (quad / 2) * 8;"
          : "const int m = wm0 + {f} * 16 + (quad % 2) * 8, k = {kk} + quad_row + (quad / 2) * 8;";
  const std::string lane_b =
      major_b == Major::K
          ? "const int n = wn0 + {f} * 16 + quad_row + (quad / 2) * 8, k = {kk} + (quad % 2) * 8;"
          : "const int n = wn0 + {f} * 16 + (quad / 2) * 8, k = {kk} + quad_row + (quad % 2) * 8;";
  const char* load_a = major_a == Major::K ? "tg_ldmatrix_x4" : "tg_ldmatrix_x4_trans";
  const char* load_b = major_b == Major::K ? "tg_ldmatrix_x4" : "tg_ldmatrix_x4_trans";
  // The XOR form of the ldmatrix addresses needs both tiles 128-byte aligned: smem_b follows the A stages.
  TG_INTERNAL_CHECK(p.stages * p.cta_tile.m * p.cta_tile.k * scheduler::bytes(prob.a_dtype) % 128 == 0)
      << "the A stages of " << p.toString() << " do not end on 128 bytes";
  const FragmentCode frag_a =
      fragmentCode('a', deriveFragmentAddressing(s.smem_a, p.cta_tile.k), lane_a, load_a, "a[mi]", scheduler::bytes(prob.a_dtype));
  const FragmentCode frag_b =
      fragmentCode('b', deriveFragmentAddressing(s.smem_b, p.cta_tile.k), lane_b, load_b, "r", scheduler::bytes(prob.b_dtype));
  const std::string setup =
      "// ldmatrix row offsets, structure derived from tg_smem_a/b (see the emitter)\n  " + frag_a.setup +
      (frag_a.setup.empty() ? "" : "\n  ") + frag_b.setup;
  const int64_t copy_a_iters = *s.copy_a.axis(0).extent.constValue();
  const int64_t copy_b_iters = *s.copy_b.axis(0).extent.constValue();
  const auto copy_a = copyLoop('a', major_a, copy_a_iters, p.vec_a, deriveCopyPlan(s.copy_a, s.smem_a, s.gmem_a, major_a));
  const auto copy_b = copyLoop('b', major_b, copy_b_iters, p.vec_b, deriveCopyPlan(s.copy_b, s.smem_b, s.gmem_b, major_b));
  std::map<std::string, std::string> values = commonTemplateValues(s, {"sm80"});
  values.at("INDEX_FUNCTIONS") += gmemStepFunctions(s);
  KernelSource source;
  source.kernel_name = values.at("KERNEL_NAME");
  addTemplateValues(values,
                    {{"TM", std::to_string(p.warp_tile.m)},
                     {"TN", std::to_string(p.warp_tile.n)},
                     {"COPY_SETUP", copy_a.setup + (copy_a.setup.empty() ? "" : "\n  ") + copy_b.setup},
                     {"COPY_BIND", copy_a.bind + (copy_a.bind.empty() ? "" : "\n    ") + copy_b.bind},
                     {"COPY_A", copy_a.loop},
                     {"COPY_B", copy_b.loop},
                     {"A_BATCH_STRIDE", launchValue(s, "batch_stride_a", s.operandLayout('a').batch_stride)},
                     {"BATCH", launchValue(s, "batch", s.kernelProblem().batch)},
                     {"BATCH_STRIDE_C", launchValue(s, "batch_stride_c", s.operandLayout('c').batch_stride)},
                     {"B_BATCH_STRIDE", launchValue(s, "batch_stride_b", s.operandLayout('b').batch_stride)},
                     {"K_TILES", launchValue(s, "k_tiles", s.kTiles())},
                     {"PERSISTENT", p.persistent ? "true" : "false"},
                     {"A_STAGE_ELEMS", std::to_string(p.cta_tile.m * p.cta_tile.k)},
                     {"B_STAGE_ELEMS", std::to_string(p.cta_tile.n * p.cta_tile.k)},
                     {"FRAGMENT_SETUP", setup},
                     {"LDMATRIX_A", frag_a.load},
                     {"LDMATRIX_B", frag_b.load},
                     {"IS_BF16", std::string(cudaDType(prob.a_dtype).mma_type) == "bf16" ? "true" : "false"},
                     {"MMA_BY_COLUMNS", p.mma_order == scheduler::MmaOrder::Columns ? "true" : "false"},
                     {"EPILOGUE", epilogueCode(s)}});
  source.cuda = fillTemplate(kernelTemplate("sm80_gemm"), values);
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
