// CPU cost of the IR: building and indexing a scheduled tile grid, and evaluating the result.
#include <benchmark/benchmark.h>

#include "tilegrid/ir/indexer.h"
#include "tilegrid/scheduler/grid_traversal.h"

namespace {

using tilegrid::ir::Val;
using tilegrid::scheduler::GridGroup;
using tilegrid::scheduler::GridMethod;
using tilegrid::scheduler::GridTraversal;

void BM_BuildAndIndexTileGrid(benchmark::State& state) {
  const GridTraversal traversal{GridMethod::SwizzleMerge, {8, 2}, GridGroup::M};
  for (auto _ : state) {
    auto grid = tilegrid::scheduler::buildTileGrid(Val::param("tiles_m"), Val::param("tiles_n"), traversal);
    auto index = tilegrid::scheduler::indexTileGrid(grid);
    benchmark::DoNotOptimize(index.tile_m.toString());
  }
}
BENCHMARK(BM_BuildAndIndexTileGrid);

// Evaluating the compiled tile index for every CTA of a 64 x 64 grid.
void BM_EvaluateTileIndex(benchmark::State& state) {
  const GridTraversal traversal{GridMethod::SwizzleMerge, {static_cast<int64_t>(state.range(0))}, GridGroup::M};
  auto grid = tilegrid::scheduler::buildTileGrid(Val(64), Val(64), traversal);
  auto index = tilegrid::scheduler::indexTileGrid(grid);
  tilegrid::ir::CompiledVal tile_m(index.tile_m, {"blockIdx.x"});
  tilegrid::ir::CompiledVal tile_n(index.tile_n, {"blockIdx.x"});
  for (auto _ : state) {
    int64_t sum = 0;
    for (int64_t cta = 0; cta < 64 * 64; ++cta) {
      const int64_t at[1] = {cta};
      sum += tile_m(at) + tile_n(at);
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * 64 * 64);
}
BENCHMARK(BM_EvaluateTileIndex)->Arg(1)->Arg(4)->Arg(7);

}  // namespace
