#include "tilegrid/codegen/sm90_epilogue.h"

#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/ir/affine.h"
#include "tilegrid/ir/bits.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/ir/ir.h"
#include "tilegrid/ir/memo.h"

namespace tilegrid::codegen {
namespace {

using scheduler::DType;

// stmatrix stores four 8x8 blocks of 16-bit elements a warp instruction, 8 contiguous elements per
// lane address. It applies when every 8-element chunk along the slab's contiguous mode (n, or m when
// stored transposed) lies contiguous and 16-byte aligned in every buffer of the scheduled slab, checked
// element by element on the IR, and the x4 blocks (16 columns at a time) tile the slab.
bool stmatrixFitsUncached(const ir::TensorDomain& slab, DType out, bool transposed) {
  const SmemOffsets offset(slab);
  if (scheduler::bytes(out) != 2 || offset.cols() % 16 != 0 || offset.rows() % 16 != 0) return false;
  for (int64_t b = 0; b < offset.stages(); ++b) {
    for (int64_t m = 0; m < offset.rows(); m += transposed ? 8 : 1) {
      for (int64_t n = 0; n < offset.cols(); n += transposed ? 1 : 8) {
        const int64_t base = offset(m, n, b);
        if (base % 8 != 0) return false;
        for (int64_t e = 1; e < 8; ++e) {
          if (offset(transposed ? m + e : m, transposed ? n : n + e, b) != base + e) return false;
        }
      }
    }
  }
  return true;
}

// The offset step from 64-row block 0 of a warpgroup's rows to block mb in the slab, where the slab's
// offset is affine in the block with a constant step (IR algebra: the row as row-in-block plus 64
// times the block, then ir::simplifyBits and ir::affineIn), checked on every element of every buffer:
// adding it to block 0's offset lets ptxas fold it into the store (256x152 computing C^T with fp32
// out kept block 0's and 1's addresses apart and spilled). 0: the rows are indexed in full, as also
// for one block.
int64_t blockStepUncached(const ir::TensorDomain& slab, int64_t warpgroup_rows) {
  if (warpgroup_rows == 64) return 0;
  const SmemOffsets offset(slab);
  const ir::Val row = ir::Val::loopIndex("row"), block = ir::Val::loopIndex("block");
  const std::map<std::string, int64_t> ranges = {
      {"row", 63}, {"block", offset.rows() / 64 - 1}, {"y", offset.cols() - 1}, {"s", offset.stages() - 1}};
  const ir::Val at = ir::simplifyBits(ir::substitute(offset.expression(), {{"x", row + block * 64}}), ranges);
  const auto form = ir::affineIn(at, "block");
  const auto step = form ? form->step.constValue() : std::nullopt;
  if (!step || *step == 0) return 0;
  for (int64_t b = 0; b < offset.stages(); ++b) {
    for (int64_t m = 0; m < offset.rows(); ++m) {
      const int64_t blk = m / 64;
      for (int64_t n = 0; n < offset.cols(); ++n) {
        TG_INTERNAL_CHECK(offset(m, n, b) == offset(m % 64, n, b) + blk * *step)
            << slab.name() << ": the derived block step " << *step << " misses element (" << m << ", " << n << ")";
      }
    }
  }
  return *step;
}

// Both walk every element of the slab and depend only on their arguments (ir::Memo).
bool stmatrixFits(const ir::TensorDomain& slab, DType out, bool transposed) {
  static ir::Memo<bool> fits;
  return fits.get(ir::memoKey(slab, scheduler::toString(out), transposed),
                  [&] { return stmatrixFitsUncached(slab, out, transposed); });
}

int64_t blockStep(const ir::TensorDomain& slab, int64_t warpgroup_rows) {
  static ir::Memo<int64_t> steps;
  return steps.get(ir::memoKey(slab, warpgroup_rows),
                   [&] { return blockStepUncached(slab, warpgroup_rows); });
}

}  // namespace

void addSm90EpilogueConfig(const scheduler::MatmulSchedule& s, ConfigBlock& config) {
  const auto& p = s.params;
  const int64_t slab_n = p.epilogue_tile.n;
  TG_INTERNAL_CHECK(slab_n <= p.warp_tile.n && slab_n % 8 == 0 && p.epilogue_tile.m == p.epilogueRows())
      << "epilogue tile " << p.epilogue_tile.toString() << " does not tile the cta tile " << p.cta_tile.toString();
  const bool tma_store = tmaStoresC(s), both = s.storesCBothWays();
  const bool both_orientations = s.cOrientationAtLaunch();
  config.value("SLAB_N", slab_n, "epilogue slab width (columns of the warpgroup's tile)")
      .flag("TMA_STORE_C", both || tma_store, "the kernel may store C by TMA")
      .flag("DIRECT_STORE_C", both || !tma_store,
            "the kernel may store C from its threads (with TMA_STORE_C too, the launch picks: tg_problem::c_by_tma)")
      .flag("STRAIGHT_C", both_orientations || !p.swap_ab, "the kernel may compute C = A B (c_straight)")
      .flag("TRANSPOSED_C", both_orientations || p.swap_ab,
            "the kernel may compute C^T = B^T A^T, storing slabs transposed (c_transposed; with STRAIGHT_C too, the "
            "launch picks: tg_problem::c_transposed)");
  // Each orientation's way of filling and storing a slab, from its own domains. The device code names
  // both; it instantiates only those the kernel holds.
  for (const bool transposed : {false, true}) {
    const scheduler::COrientationDomains c = s.cOrientation(transposed);
    const std::string group = transposed ? "c_transposed" : "c_straight";
    // Stored transposed (an m-contiguous slab), TMA boxes are the atom's width of a warpgroup's rows.
    const int64_t box_rows = transposed ? c.atom.contiguousElems() : p.warp_tile.m;
    TG_INTERNAL_CHECK(p.warp_tile.m % box_rows == 0)
        << "epilogue atom " << c.atom.toString() << " does not tile a warpgroup's rows";
    // Straight, a warp's lanes walk n (axis 1 of gmem_c) along a row m; transposed, they walk m.
    const bool row_contiguous = constantStep(c.gmem_c, transposed ? 0 : 1) == 1;
    config.flag("TRANSPOSED", transposed, "", group)
        .flag("STMATRIX", stmatrixFits(c.smem_epilogue, s.problem.out_dtype, transposed),
              "slabs are filled by stmatrix", group)
        .value("BLOCK_STEP", blockStep(c.smem_epilogue, p.warp_tile.m),
               "slab offset from a warpgroup's 64-row block 0 to block 1 (0: indexed through the row)", group)
        .value("BOX_ROWS", box_rows, "slab rows a TMA store box covers", group)
        .flag("ROW_CONTIGUOUS", row_contiguous, "C's offset steps by 1 along the lanes' direct stores", group);
  }
}

}  // namespace tilegrid::codegen
