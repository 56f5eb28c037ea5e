#include "tilegrid/codegen/problem_args.h"

#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/l2_policy.h"

namespace tilegrid::codegen {
namespace {

// A count the kernels hold in an int. The schedule refused every problem past the kernels' 32-bit
// counts (scheduler::kMaxExtent, which is also planWorkSplit's limit) before this is reached.
int narrow(int64_t value, const char* what) {
  TG_INTERNAL_CHECK(value >= 0 && value <= scheduler::kMaxExtent) << what << " = " << value << " passed validation";
  return static_cast<int>(value);
}

}  // namespace

tg_problem problemArgs(const scheduler::MatmulSchedule& s, int64_t clusters) {
  const scheduler::MatmulProblem p = s.kernelProblem();
  const scheduler::OperandLayout a = s.operandLayout('a'), b = s.operandLayout('b'), c = s.operandLayout('c');
  tg_problem args{};
  args.batch_stride_a = a.batch_stride;
  args.batch_stride_b = b.batch_stride;
  args.batch_stride_c = c.batch_stride;
  args.M = narrow(p.m, "M");
  args.N = narrow(p.n, "N");
  args.K = narrow(p.k, "K");
  args.batch = narrow(p.batch, "batch");
  args.lda = narrow(a.ld, "lda");
  args.ldb = narrow(b.ld, "ldb");
  args.ldc = narrow(c.ld, "ldc");
  const scheduler::ReadOncePolicy l2 = scheduler::readOncePolicy(s);
  args.evict_first_a = l2.evict_first_a ? 1 : 0;
  args.evict_first_b = l2.evict_first_b ? 1 : 0;
  // A dot kernel reads the sizes and its split of K; the tile and work-split fields are a tiled
  // kernel's, and stay zero.
  if (s.params.dot) {
    const scheduler::DotSplit dot = scheduler::planDotSplit(p, *s.params.dot, s.device);
    args.k_chunks = narrow(dot.chunks, "k_chunks");
    args.k_chunk_steps = narrow(dot.chunk_steps, "k_chunk_steps");
    return args;
  }
  args.tiles_m = narrow(s.tilesM(), "tiles_m");
  args.tiles_n = narrow(s.tilesN(), "tiles_n");
  args.bn = narrow(s.params.cta_tile.n, "bn");
  args.k_tiles = narrow(s.kTiles(), "k_tiles");
  args.k_tail_steps = narrow(s.kTailSteps(), "k_tail_steps");
  args.units = narrow(s.workUnits() / p.batch, "units");
  args.c_by_tma = tmaStoresC(s) ? 1 : 0;
  args.c_transposed = s.params.swap_ab ? 1 : 0;
  const auto [grouped, other] = s.gridExtents();
  args.grid_grouped = narrow(grouped, "grid_grouped");
  args.grid_other = narrow(other, "grid_other");
  args.grid_group = s.params.grid.group == scheduler::GridGroup::N ? scheduler::kGroupParamN : scheduler::kGroupParamM;
  args.grid_factor = narrow(s.params.grid.factors[0], "grid_factor");
  args.cluster_m = narrow(s.params.cluster.m, "cluster_m");
  TG_INTERNAL_CHECK(clusters >= 1) << "a launch of " << clusters << " clusters";
  args.split = kernelSplit(s.workSplit(clusters));
  return args;
}

tg_work_split kernelSplit(const scheduler::WorkSplit& w) {
  tg_work_split k{};
  k.clusters = narrow(w.clusters, "clusters");
  k.k_tiles = narrow(w.k_tiles, "k_tiles");
  k.dp_units = narrow(w.dp_units, "dp_units");
  k.dp_stride = narrow(w.dp_stride, "dp_stride");
  k.sk_total = narrow(w.sk_total, "sk_total");
  k.sk_share = narrow(w.sk_share, "sk_share");
  k.sk_extra = narrow(w.sk_extra, "sk_extra");
  k.pieces = narrow(w.pieces, "pieces");
  k.reduction = w.reduction == scheduler::SplitReduction::InSlices      ? TG_REDUCE_IN_SLICES
                : w.reduction == scheduler::SplitReduction::Accumulated ? TG_REDUCE_ACCUMULATED
                                                                        : TG_REDUCE_IN_TURN;
  return k;
}

}  // namespace tilegrid::codegen
