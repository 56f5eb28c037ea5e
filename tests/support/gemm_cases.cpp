#include "support/gemm_cases.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace tilegrid::testing {

using scheduler::DType;
using scheduler::GridGroup;
using scheduler::GridMethod;
using scheduler::Layout;

scheduler::MatmulProblem makeProblem(int64_t m, int64_t n, int64_t k, Layout layout, DType in, DType out,
                                     int64_t batch, int64_t align) {
  scheduler::MatmulProblem p;
  p.align_a = p.align_b = p.align_c = align;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  p.layout = layout;
  p.a_dtype = p.b_dtype = in;
  p.out_dtype = out;
  return p.validate();
}

scheduler::MatmulProblem withStrides(scheduler::MatmulProblem p, int64_t lda, int64_t ldb, int64_t ldc, int64_t stride_a,
                                     int64_t stride_b, int64_t stride_c) {
  p.lda = lda;
  p.ldb = ldb;
  p.ldc = ldc;
  p.stride_a = stride_a;
  p.stride_b = stride_b;
  p.stride_c = stride_c;
  p.align_a = p.align_b = p.align_c = 0;  // derived again from the new leading dimensions
  return p.validate();
}

std::string GemmCase::label() const {
  std::string grid = overrides.method ? scheduler::toString(*overrides.method) : "default";
  if (overrides.factors) {
    for (int64_t f : *overrides.factors) grid += "_" + std::to_string(f);
  }
  const auto t = overrides.cta_tile;
  const std::string inputs = problem.a_dtype == problem.b_dtype ? scheduler::toString(problem.a_dtype)
                                                                : fmt::format("{}x{}", scheduler::toString(problem.a_dtype),
                                                                              scheduler::toString(problem.b_dtype));
  return fmt::format("{}x{}x{}b{}_{}_{}to{}_{}_{}", problem.m, problem.n, problem.k, problem.batch,
                     scheduler::toString(problem.layout), inputs, scheduler::toString(problem.out_dtype), grid,
                     t ? t->toString() : "tiles") +
         (problem.scale != scheduler::ScaleMode::None ? fmt::format("_scales_{}", scheduler::toString(problem.scale)) : "") +
         (problem.packed() ? "" : fmt::format("_ld{}_{}_{}_bs{}_{}_{}", problem.leadingDimA(), problem.leadingDimB(),
                                              problem.leadingDimC(), problem.batchStrideA(), problem.batchStrideB(),
                                              problem.batchStrideC())) +
         (overrides.cluster_m ? fmt::format("_c{}", *overrides.cluster_m) : "") +
         (overrides.persistent ? (*overrides.persistent ? "_persistent" : "_cta_per_tile") : "") +
         (overrides.stream_k ? (*overrides.stream_k ? "_stream_k" : "_no_stream_k") : "") +
         (overrides.swap_ab ? (*overrides.swap_ab ? "_swap_ab" : "_no_swap_ab") : "") +
         (overrides.pad ? (*overrides.pad ? "_padded" : "_unpadded") : "") +
         (overrides.deterministic && *overrides.deterministic ? "_deterministic" : "") +
         (overrides.pingpong && *overrides.pingpong ? "_pingpong" : "") +
         (problem.epilogue.isIdentity() ? "" : " epilogue " + problem.epilogue.toString());
}

namespace {

struct Grid {
  GridMethod method;
  std::vector<int64_t> factors;
};

const std::vector<Grid> kGrids = {{GridMethod::None, {1}}, {GridMethod::SplitMerge, {3}}, {GridMethod::SwizzleMerge, {4, 2}}};

struct TileConfig {
  std::optional<scheduler::TileShape> cta_tile;
  int64_t cluster_m = 1;
  bool swap_ab = false;  // sm_90: compute C^T = B^T A^T
  bool padded = false;   // sm_80: misaligned operands read through padded copies (misaligned shapes only)
  bool pingpong = false;  // sm_90: the consumer warpgroups take whole tiles in turns (not with split-merge)
};

struct Shape3 {
  int64_t m, n, k;
};

// `aligned` has every leading dimension a multiple of 8; `misaligned` does not.
std::vector<GemmCase> compileCases(scheduler::Arch arch, const std::vector<TileConfig>& tiles,
                                   Shape3 aligned_shape = {1024, 512, 256}, Shape3 misaligned_shape = {1001, 515, 257}) {
  std::vector<GemmCase> cases;
  const std::vector<std::pair<DType, DType>> types = {{DType::BF16, DType::BF16}, {DType::FP16, DType::FP32}};
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    for (const auto& [in, out] : types) {
      for (const Grid& g : kGrids) {
        for (const auto& tile : tiles) {
          for (bool aligned : {true, false}) {
            if (tile.padded && aligned) continue;  // nothing to pad
            if (tile.pingpong && g.method == GridMethod::SplitMerge) continue;  // refused: not every unit exists
            const Shape3 s = aligned ? aligned_shape : misaligned_shape;
            GemmCase c{makeProblem(s.m, s.n, s.k, layout, in, out), {}};
            c.overrides.arch = arch;
            c.overrides.method = g.method;
            c.overrides.factors = g.factors;
            c.overrides.group = GridGroup::M;
            c.overrides.cta_tile = tile.cta_tile;
            if (arch == scheduler::Arch::Sm90) {
              c.overrides.cluster_m = tile.cluster_m;
              c.overrides.swap_ab = tile.swap_ab;
              if (tile.pingpong) c.overrides.pingpong = true;
            } else {
              // Unset, the misaligned shapes here are too small for the copy to pay.
              if (tile.padded) c.overrides.pad = true;
              // Both mma orders meet every layout, dtype pair and tile, whatever the device's default.
              c.overrides.mma_order = g.method == GridMethod::SplitMerge ? scheduler::MmaOrder::Rows
                                                                          : scheduler::MmaOrder::Columns;
            }
            cases.push_back(c);
          }
        }
      }
    }
  }
  return cases;
}

std::vector<GemmCase> runCases(scheduler::Arch arch, const scheduler::TileShape& small_tile) {
  struct Shape {
    int64_t m, n, k, batch;
  };
  // Edge tiles in M and N, K tails, K shorter than one tile, misaligned leading dimensions (odd
  // sizes give alignment 1 or 2), exact tiles, and batches; rows of a few elements (6 in M: padded
  // copies of 16-byte rows where A is M-major, batch entries back to back).
  const std::vector<Shape> shapes = {{257, 129, 77, 1}, {128, 128, 64, 1}, {200, 72, 136, 1}, {1, 1, 1, 1},
                                     {66, 130, 1000, 2}, {300, 36, 18, 1}, {6, 300, 1000, 3}};
  const std::vector<std::pair<DType, DType>> types = {
      {DType::BF16, DType::BF16}, {DType::FP16, DType::FP32}, {DType::BF16, DType::FP32}, {DType::FP16, DType::FP16}};
  std::vector<GemmCase> cases;
  int i = 0;
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    for (const Shape& s : shapes) {
      const auto& [in, out] = types[static_cast<size_t>(i % 4)];
      const Grid& g = kGrids[static_cast<size_t>(i % 3)];
      // 1x1x1 keeps its layout (a given alignment of one element): every kernel reads its one-row
      // operands in the caller's major, and through padded copies.
      GemmCase c{makeProblem(s.m, s.n, s.k, layout, in, out, s.batch, s.m == 1 && s.n == 1 ? 1 : 0), {}};
      c.overrides.arch = arch;
      c.overrides.method = g.method;
      c.overrides.factors = g.factors;
      if (i % 2 == 1) c.overrides.cta_tile = small_tile;
      // sm_90: every third case puts CTAs in clusters, of two or (every sixth) four (odd tile rows
      // leave part of a cluster empty).
      if (arch == scheduler::Arch::Sm90) c.overrides.cluster_m = i % 6 == 5 ? 4 : i % 3 == 2 ? 2 : 1;
      // sm_90: every fifth case computes C^T = B^T A^T and stores its tiles transposed.
      if (arch == scheduler::Arch::Sm90 && i % 5 == 4) c.overrides.swap_ab = true;
      // sm_80: every fourth case runs one CTA per tile instead of persistent CTAs walking units, and
      // every third reads its misaligned operands (batched too) through padded copies.
      if (arch == scheduler::Arch::Sm80 && i % 4 == 3) c.overrides.persistent = false;
      if (arch == scheduler::Arch::Sm80 && i % 3 == 1) c.overrides.pad = true;
      cases.push_back(c);
      ++i;
    }
  }
  return cases;
}

std::vector<GemmCase> cublasCases(scheduler::Arch arch, const std::vector<Shape3>& shapes) {
  std::vector<GemmCase> cases;
  std::set<std::string> labels;
  for (Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    for (const Shape3& s : shapes) {
      GemmCase c{makeProblem(s.m, s.n, s.k, layout, DType::BF16, DType::BF16), {}};
      c.overrides.arch = arch;
      // One-row operands read K-major whatever the caller's layout (MatmulProblem::validate), so
      // layouts may meet in one problem: each runs once.
      if (labels.insert(c.label()).second) cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace

// Default tiles with and without padded copies of the misaligned operands, and a small tile.
const std::vector<TileConfig> kSm80Tiles = {
    {std::nullopt, 1}, {std::nullopt, 1, false, true}, {scheduler::TileShape{64, 128, 32}, 1}};

std::vector<GemmCase> sm80CompileCases() { return compileCases(scheduler::Arch::Sm80, kSm80Tiles); }

// Edge tiles in M and N and a K tail in the aligned shape; alignment 1 in the other.
constexpr Shape3 kSmallAligned{200, 264, 136}, kSmallMisaligned{131, 67, 37};

std::vector<GemmCase> sm80SmallVariants() {
  return compileCases(scheduler::Arch::Sm80, kSm80Tiles, kSmallAligned, kSmallMisaligned);
}

// Default tiles alone and in pairs (one consumer warpgroup, 64x128, on the aligned shape, under half
// a wave of 128x128; 128x128 on the misaligned one), 128x128 pairs (the default under half a wave of
// 128x256 pairs), 128x256 pairs (the default from half a wave up), three consumer warpgroups
// (192x160), a width whose halves (100 rows) and epilogue slabs (64 or 32 columns) overlap (128x200
// in pairs), and 192x192, whose epilogue slabs are narrowed to 64 bytes to leave it four stages,
// 192x152 pairs computing C^T (transposed slabs, the last one overlapping, multicast halves of 76
// rows), and pairs of two consumer warpgroups of 128 rows (two accumulator blocks each): 256x152x32
// computing C (64-byte atoms), 256x152x64 computing C^T (16- or 8-column slabs, narrowed for a
// fourth stage). Ping-pong kernels (two warpgroups, a whole tile each): 128x128 pairs (two accumulator
// blocks a warpgroup), and 64x200 alone computing C^T (a width whose last slab overlaps).
const std::vector<TileConfig> kSm90Tiles = {{std::nullopt, 1},
                                            {std::nullopt, 2},
                                            {scheduler::TileShape{128, 256, 64}, 2},
                                            {scheduler::TileShape{128, 128, 64}, 2},
                                            {scheduler::TileShape{192, 160, 64}, 2},
                                            {scheduler::TileShape{128, 200, 64}, 2},
                                            {scheduler::TileShape{128, 232, 64}, 4},
                                            {scheduler::TileShape{192, 192, 64}, 1},
                                            {scheduler::TileShape{192, 152, 64}, 2, true},
                                            {scheduler::TileShape{256, 152, 32}, 2},
                                            {scheduler::TileShape{256, 152, 64}, 2, true},
                                            {scheduler::TileShape{128, 128, 64}, 2, false, false, true},
                                            {scheduler::TileShape{64, 200, 64}, 1, true, false, true}};

std::vector<GemmCase> sm90SmallVariants() {
  return compileCases(scheduler::Arch::Sm90, kSm90Tiles, kSmallAligned, kSmallMisaligned);
}

std::vector<GemmCase> sm80RunCases() { return runCases(scheduler::Arch::Sm80, scheduler::TileShape{64, 64, 32}); }

std::vector<GemmCase> sm80CublasCases() {
  // The last shape has K and every leading dimension not a multiple of 8: by default its operands
  // are read through padded copies, and once more in 2-byte pieces.
  std::vector<GemmCase> cases = cublasCases(scheduler::Arch::Sm80, {{1, 1, 1}, {1, 1000, 999}, {999, 1, 1000},
                                                                    {17, 33, 65},
                                                                    {127, 129, 63},
                                                                    {128, 128, 32},
                                                                    {1000, 1000, 1000},
                                                                    {4096, 4096, 4096},
                                                                    {3000, 5000, 1000},
                                                                    {1001, 999, 1003}});
  for (GemmCase c : cublasCases(scheduler::Arch::Sm80, {{1001, 999, 1003}})) {
    c.overrides.pad = false;
    cases.push_back(c);
  }
  return cases;
}

std::vector<GemmCase> sm90CompileCases() { return compileCases(scheduler::Arch::Sm90, kSm90Tiles); }

std::vector<GemmCase> sm90RunCases() { return runCases(scheduler::Arch::Sm90, scheduler::TileShape{64, 128, 64}); }

std::vector<GemmCase> sm90CublasCases() {
  return cublasCases(scheduler::Arch::Sm90, {{1, 1, 1}, {1, 1000, 999}, {999, 1, 1000},
                                             {5, 7, 3},
                                             {127, 129, 63},
                                             {1000, 8192, 8192},
                                             {8192, 1000, 8192},
                                             {4000, 4000, 4000},
                                             {4097, 4097, 4096},
                                             {6144, 6144, 6144},
                                             {8192, 8192, 8192},
                                             {5000, 3000, 4096},
                                             // N of 64 or less: computed as C^T, rows of C 80 and
                                             // (misaligned) 40 bytes; M of 64 or less: 64-wide tiles.
                                             {2000, 40, 3000},
                                             {3000, 20, 1000},
                                             {48, 3000, 2000},
                                             // Tile widths fitted to one wave, with a K tail: 12 x 11
                                             // tiles of 128x144 (TN, NN; TT computing C^T), and C^T in
                                             // 20 x 6 of 128x112 (TN, TT).
                                             {1536, 1536, 1056},
                                             {640, 2560, 1056},
                                             // Fits that replace other tiles: C^T in 16 x 8 of
                                             // 128x160 (TN, TT; NN computing C), and 6 x 22 of
                                             // 128x144 launched walking m first (TN, NN); NT keeps
                                             // 128x256 pairs, also walking m first.
                                             {1280, 2048, 1056},
                                             {768, 3072, 1056},
                                             // Narrow problems in 128-row tiles over two rounds, in
                                             // pairs: M of 16 as wgmma's N (C^T), N of 8 (C).
                                             {16, 28672, 1024},
                                             {28672, 8, 512}});
}

std::vector<GemmCase> sm90StreamKCases() {
  struct Row {
    int64_t m, n, k, batch;
    Layout layout;
    DType out;
    int64_t cluster_m;
    // Pinned: the ranking would pick tiles that fill these waves better, leaving nothing to cut.
    scheduler::TileShape cta_tile = {128, 256, 64};
    bool swap_ab = false;
    bool deterministic = false;
  };
  // 128x256 tiles on 132 SMs: 1536x2048 gives 48 cluster pairs (a 73% full wave: every unit shared
  // among 66 pairs, up to three ways) or 96 lone CTAs; 5000x3000x2176 cuts a last wave of 42 pairs
  // into ranges of 21-22 K tiles. K is long enough everywhere for the cut to pay (a hand-over costs
  // 12 K tiles): 3240-4136 under a wave, and from a wave up more than 12 K tiles over the last
  // wave's idle share. Three consumer warpgroups (192x160): 3000x3000 has 304 tiles, 2.3
  // waves of lone CTAs; 1000x4000 with a K tail, 6 x 25 tiles in pairs, 75 units. Overlapping
  // multicast halves and slabs: 1280x1800 in 128x200 pairs (45 units), 1000x3000 in 128x232 (52).
  // Clusters of four (33 on 132 SMs): 1536x2048 gives 24 units, 1000x3000 in 128x232 26, each B tile
  // multicast in quarters (overlapping ones for 232 rows). 192x192 with 16-column fp32 slabs:
  // 2000x3000 has 176 tiles, 1.33 waves; in pairs 96 units, 1.45 waves. 128x192 pairs at 2000x2000:
  // 88 units, 1.33 waves. Computing C^T: 3000x2000 in 192x152 is 11 x 20 tiles, 1.67 waves;
  // 1536x2048 NN (TT for the kernel) in 128x256 pairs with fp32 out is 48 units again. 128-row
  // consumer warpgroups (256x152): 3000x2000 in pairs is 84 units, 1.27 waves; computing C^T of
  // 2000x3000 NT alone, 168 tiles. Less than half a wave, each unit cut among many clusters:
  // 512x1024x8192 is 8 units of 128 K tiles on 66 pairs (about 8 ways); 300x700x4100 NT with fp32
  // out, 9 lone tiles with edges and a K tail, 65 K tiles each on 132 CTAs (14 pieces). Those two add
  // up their sums in slices, as do 512x608x8192 in lone 256x152 tiles (128-row consumer warpgroups),
  // 8 units in 16 pieces, and 256x1408x6000 TT in lone 128x128 tiles, 22 units in 6 pieces (the
  // fewest that do); their sums are too large for the accumulation area. 768x768x8192 in 128x128
  // pairs, 18 units in 3 pieces, adds them in turn. Sums that fit accumulate at L2: 128x128x16384 in
  // 64x64x256 tiles is 4 units in 16 pieces; 200x100x9000 NT with fp32 out in 64x64 pairs, edges and a
  // K tail, 4 units in 16 pieces; 72x1x20000 computing C^T in 64x8 tiles (the decode shape), 9 units
  // in 14 pieces; 100x120x50000 TT in 64x128x128 pairs (one tile cut in step, as the scheduler runs
  // it), one cluster unit overhanging M and N in 66 pieces with a K tail; 180x200x50000 NT in
  // 64x128 tiles in one cluster of four over its three tile rows (as the scheduler runs it: the
  // fourth CTA lies past M), two units overhanging N in 16-17 pieces with a K tail, and 192x256x4100
  // NN with fp32 out the same way at short K (two units in 16 pieces of 4 K tiles, a K tail); the
  // first of those also pinned deterministic, which adds them in slices.
  const scheduler::TileShape three{192, 160, 64};
  const std::vector<Row> rows = {{1536, 2048, 3328, 1, Layout::TN, DType::BF16, 2},
                                 {1536, 2048, 3240, 1, Layout::NT, DType::BF16, 2},
                                 {1536, 2048, 3328, 1, Layout::TN, DType::FP32, 1},
                                 {1290, 2047, 3271, 1, Layout::NN, DType::BF16, 2},
                                 {1024, 1024, 3328, 3, Layout::TT, DType::BF16, 2},
                                 {5000, 3000, 2176, 1, Layout::TN, DType::BF16, 2},
                                 {3000, 3000, 1216, 1, Layout::TN, DType::BF16, 1, three},
                                 {1000, 4000, 1000, 1, Layout::NN, DType::FP32, 2, three},
                                 {1280, 1800, 3240, 1, Layout::TN, DType::BF16, 2, scheduler::TileShape{128, 200, 64}},
                                 {1000, 3000, 4136, 1, Layout::NN, DType::FP32, 2, scheduler::TileShape{128, 232, 64}},
                                 {1536, 2048, 3240, 1, Layout::TN, DType::BF16, 4},
                                 {1000, 3000, 4136, 1, Layout::NT, DType::BF16, 4, scheduler::TileShape{128, 232, 64}},
                                 {2000, 3000, 1190, 1, Layout::TT, DType::FP32, 1, scheduler::TileShape{192, 192, 64}},
                                 {2000, 3000, 1450, 1, Layout::NT, DType::BF16, 2, scheduler::TileShape{192, 192, 64}},
                                 {2000, 2000, 1190, 1, Layout::TN, DType::BF16, 2, scheduler::TileShape{128, 192, 64}},
                                 {3000, 2000, 2340, 1, Layout::TN, DType::BF16, 1, scheduler::TileShape{192, 152, 64}, true},
                                 {1536, 2048, 3240, 1, Layout::NN, DType::FP32, 2, scheduler::TileShape{128, 256, 64}, true},
                                 {3000, 2000, 1050, 1, Layout::TN, DType::BF16, 2, scheduler::TileShape{256, 152, 64}},
                                 {2000, 3000, 1050, 1, Layout::NT, DType::FP32, 1, scheduler::TileShape{256, 152, 64}, true},
                                 {512, 1024, 8192, 1, Layout::TN, DType::BF16, 2},
                                 {300, 700, 4100, 1, Layout::NT, DType::FP32, 1},
                                 {768, 768, 8192, 1, Layout::TN, DType::BF16, 2, scheduler::TileShape{128, 128, 64}},
                                 {512, 608, 8192, 1, Layout::NN, DType::FP32, 1, scheduler::TileShape{256, 152, 64}},
                                 {256, 1408, 6000, 1, Layout::TT, DType::BF16, 1, scheduler::TileShape{128, 128, 64}},
                                 {128, 128, 16384, 1, Layout::TN, DType::BF16, 1, scheduler::TileShape{64, 64, 256}},
                                 {200, 100, 9000, 1, Layout::NT, DType::FP32, 2, scheduler::TileShape{64, 64, 64}},
                                 {72, 1, 20000, 1, Layout::TN, DType::BF16, 1, scheduler::TileShape{64, 8, 256}, true},
                                 {100, 120, 50000, 1, Layout::TT, DType::BF16, 2, scheduler::TileShape{64, 128, 128}},
                                 {180, 200, 50000, 1, Layout::NT, DType::BF16, 4, scheduler::TileShape{64, 128, 64}},
                                 {192, 256, 4100, 1, Layout::NN, DType::FP32, 4, scheduler::TileShape{64, 128, 64}},
                                 {128, 128, 16384, 1, Layout::TN, DType::BF16, 1, scheduler::TileShape{64, 64, 256},
                                  false, true}};
  std::vector<GemmCase> cases;
  for (const Row& r : rows) {
    GemmCase c{makeProblem(r.m, r.n, r.k, r.layout, DType::BF16, r.out, r.batch), {}};
    c.overrides.arch = scheduler::Arch::Sm90;
    c.overrides.cluster_m = r.cluster_m;
    c.overrides.cta_tile = r.cta_tile;
    c.overrides.stream_k = true;
    c.overrides.swap_ab = r.swap_ab;
    if (r.deterministic) c.overrides.deterministic = true;
    cases.push_back(c);
  }
  return cases;
}

std::vector<GemmCase> sm90PingPongCases() {
  struct Row {
    int64_t m, n, k, batch;
    Layout layout;
    DType out;
    std::optional<scheduler::TileShape> cta_tile;
    int64_t cluster_m = 1;
    bool swap_ab = false;
    const char* epilogue = nullptr;
  };
  // Several units a CTA, so that both warpgroups take turns many times: 4096^3 in the chosen tile's
  // 64-row halves (64x256 pairs, 16 units a pair); 4000x4000x1000 NT with fp32 out in 128x128 pairs
  // (two accumulator blocks a warpgroup, edge tiles); 3000x2000x1050 NN alone with a K tail; C^T of
  // 2000x3000 TT in 64x200 tiles (an overlapping last slab, transposed stores); a batch of three; a
  // misaligned problem read through padded copies with C stored by the threads; a short K (two K
  // tiles a unit, the turns passing fastest); and fused epilogues: bias with GELU and an auxiliary
  // output, and alpha/beta with C.
  const scheduler::TileShape square{128, 128, 64};
  const std::vector<Row> rows = {
      {4096, 4096, 4096, 1, Layout::TN, DType::BF16, std::nullopt, 2},
      {4000, 4000, 1000, 1, Layout::NT, DType::FP32, square, 2},
      {3000, 2000, 1050, 1, Layout::NN, DType::BF16, square},
      {2000, 3000, 1450, 1, Layout::TT, DType::BF16, scheduler::TileShape{64, 200, 64}, 1, true},
      {1024, 1536, 512, 3, Layout::TN, DType::BF16, square, 2},
      {2001, 3003, 1999, 1, Layout::TN, DType::BF16, square},
      {4096, 4096, 128, 1, Layout::TN, DType::BF16, square},
      {2048, 2048, 1024, 1, Layout::TN, DType::BF16, square, 1, false, "gelu_tanh(acc + bias[n]); aux = acc + bias[n]"},
      {3000, 1024, 1024, 1, Layout::NT, DType::BF16, square, 2, false, "alpha * acc + beta * c"},
  };
  std::vector<GemmCase> cases;
  for (const Row& r : rows) {
    GemmCase c{makeProblem(r.m, r.n, r.k, r.layout, DType::BF16, r.out, r.batch), {}};
    if (r.epilogue) c.problem.epilogue = ir::Epilogue::parse(r.epilogue);
    c.overrides.arch = scheduler::Arch::Sm90;
    c.overrides.cluster_m = r.cluster_m;
    c.overrides.cta_tile = r.cta_tile;
    c.overrides.swap_ab = r.swap_ab;
    c.overrides.pingpong = true;
    cases.push_back(c);
  }
  return cases;
}

std::vector<GemmCase> dotCases() {
  struct Row {
    int64_t m, n, k, batch;
    Layout layout;
    DType in, out;
    const char* epilogue = nullptr;
    int64_t lda = 0;
  };
  const std::vector<Row> rows = {
      {1, 1, 100000, 1, Layout::TN, DType::BF16, DType::BF16},
      {1, 1, 100000, 1, Layout::NT, DType::BF16, DType::BF16},
      {8, 8, 65536, 1, Layout::TN, DType::BF16, DType::BF16},
      {8, 8, 32768, 1, Layout::NT, DType::BF16, DType::FP32},
      {4, 4, 65536, 1, Layout::NN, DType::FP16, DType::FP16},
      {3, 5, 7777, 1, Layout::TT, DType::BF16, DType::BF16},
      {2, 7, 1, 1, Layout::TN, DType::BF16, DType::BF16},
      {5, 3, 13, 1, Layout::TN, DType::FP16, DType::FP32},
      {8, 1, 4101, 3, Layout::TN, DType::BF16, DType::BF16},
      {6, 6, 300000, 2, Layout::NT, DType::BF16, DType::BF16},
      {7, 2, 9999, 1, Layout::TN, DType::BF16, DType::BF16, nullptr, 10001},
      {3, 3, 20000, 1, Layout::TN, DType::BF16, DType::BF16, nullptr, 20004},
      {8, 4, 65536, 1, Layout::TN, DType::BF16, DType::BF16, "gelu(alpha*acc + bias[n])"},
      {4, 8, 30000, 2, Layout::NT, DType::BF16, DType::BF16, "alpha*acc + beta*c"},
      {5, 7, 50000, 1, Layout::TN, DType::BF16, DType::FP32, "relu(acc + bias[m]); aux = acc + bias[m]"},
      {1, 8, 4096, 1, Layout::TN, DType::FP16, DType::FP16, "silu(acc) * 2"},
      // Operands running along M or N: both, one, rows apart by more than their count, and fewer rows
      // than the kernel holds.
      {8, 2, 16384, 1, Layout::NT, DType::BF16, DType::BF16},
      {2, 4, 5000, 3, Layout::NN, DType::FP16, DType::FP32},
      {4, 4, 1001, 1, Layout::NT, DType::BF16, DType::BF16, nullptr, 12},
      {3, 4, 777, 1, Layout::NT, DType::BF16, DType::BF16, "relu(acc + bias[n]); aux = acc"},
      // Cut into blocks along the long side: one row against a weight (C^T), a last block past N,
      // blocks along M, blocks cut along K too (several batch entries), epilogues naming m and n.
      {1, 4096, 4096, 1, Layout::TN, DType::BF16, DType::BF16},
      {1, 1003, 4100, 2, Layout::TN, DType::FP16, DType::FP32, "gelu(alpha*acc + bias[n])"},
      {3, 517, 999, 1, Layout::TN, DType::BF16, DType::BF16, "relu(acc + bias[m]); aux = acc + bias[m]"},
      {777, 2, 2048, 1, Layout::TN, DType::BF16, DType::BF16, "alpha*acc + beta*c"},
      {2, 40, 200000, 3, Layout::TN, DType::BF16, DType::BF16},
      {8, 100, 3000, 1, Layout::NT, DType::BF16, DType::BF16},
  };
  std::vector<GemmCase> cases;
  for (const Row& r : rows) {
    GemmCase c;
    c.problem = makeProblem(r.m, r.n, r.k, r.layout, r.in, r.out, r.batch);
    if (r.lda != 0) c.problem = withStrides(c.problem, r.lda, 0, 0, 0, 0, 0);
    if (r.epilogue) c.problem.epilogue = ir::Epilogue::parse(r.epilogue);
    c.problem.validate();
    c.overrides.dot = true;
    cases.push_back(c);
  }
  return cases;
}

std::vector<GemmCase> epilogueCases(scheduler::Arch arch) {
  struct Kind {
    const char* text;
    DType bias = DType::BF16, c = DType::BF16, aux = DType::BF16, out = DType::BF16;
  };
  const Kind kinds[] = {
      {"gelu(alpha*acc + bias[n])"},
      {"alpha*acc + beta*c"},
      {"relu(acc + bias[m]); aux = acc + bias[m]"},
      {"silu(acc) * 2"},
      {"gelu_tanh(acc + bias[n]); aux = acc + bias[n]"},
      {"sigmoid(acc) - tanh(residual) + exp(-acc * acc)"},
      {"max(acc, c) / (2 + min(acc * acc, 0.5)) + bf16(acc) - fp16(acc); aux = -acc / 3", DType::FP32, DType::FP32,
       DType::FP32},
      {"alpha * acc + beta * c + bias[m]", DType::FP32, DType::BF16, DType::BF16, DType::FP32},
  };
  struct Shape {
    int64_t m, n, k, batch;
    Layout layout;
  };
  const std::vector<Shape> shapes =
      arch == scheduler::Arch::Sm90
          ? std::vector<Shape>{{1000, 1030, 256, 1, Layout::TN}, {512, 768, 1024, 1, Layout::NT},
                               {16, 4096, 1024, 1, Layout::TN},  {64, 64, 65536, 1, Layout::TN},
                               {200, 136, 96, 3, Layout::TN},    {2048, 2048, 256, 1, Layout::TN}}
          : std::vector<Shape>{{1000, 1030, 256, 1, Layout::TN}, {257, 383, 512, 1, Layout::NT},
                               {130, 250, 64, 2, Layout::TN}};
  std::vector<GemmCase> cases;
  for (size_t i = 0; i < std::size(kinds); ++i) {
    // Each kind on three shapes, the shapes taken in turn.
    for (size_t j = 0; j < 3; ++j) {
      const Shape& s = shapes[(i + j) % shapes.size()];
      GemmCase c;
      c.problem = makeProblem(s.m, s.n, s.k, s.layout, DType::BF16, kinds[i].out, s.batch);
      c.problem.epilogue = ir::Epilogue::parse(kinds[i].text);
      c.problem.bias_dtype = kinds[i].bias;
      c.problem.c_in_dtype = c.problem.residual_dtype = kinds[i].c;
      c.problem.aux_dtype = kinds[i].aux;
      c.overrides.arch = arch;
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<std::string> cublasLtEpilogueTexts() {
  return {"acc + bias[n]", "relu(acc + bias[n])", "gelu_tanh(alpha * acc + bias[n])", "alpha * acc + beta * c",
          "gelu_tanh(acc + bias[n]); aux = acc + bias[n]"};
}

std::vector<GemmCase> sm90Fp8Cases() {
  struct Row {
    int64_t m, n, k, batch;
    DType a, b, out;
    scheduler::ScaleMode scale;
    const char* epilogue = nullptr;
    bool pingpong = false;
  };
  using scheduler::ScaleMode;
  // Default schedules over what 8-bit inputs reach: a large square (cluster pairs, stream-K's last
  // wave), a K tail (K not a multiple of the 128-element K tile, its last tile half run), rows
  // not 16-byte aligned (K = 1000: padded copies), decode (M = 1 and 16: C^T and narrow tiles), a
  // batch, e4m3 with e5m2 both ways round, fp16 and fp32 out, row scales, scales with a fused
  // epilogue (GELU with a bias and an aux output) and an epilogue placing them itself, ping-pong
  // consumers, and block scales.
  const std::vector<Row> rows = {
      {4096, 4096, 4096, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Tensor},
      {2000, 3000, 4000, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Tensor},
      {1000, 1000, 1000, 1, DType::E5M2, DType::E5M2, DType::FP16, ScaleMode::Row},
      {1, 4096, 4096, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Tensor},
      {16, 8192, 2048, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Row},
      {512, 768, 1024, 3, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Row},
      {3000, 2048, 2048, 1, DType::E4M3, DType::E5M2, DType::FP32, ScaleMode::None},
      {2048, 1000, 4096, 1, DType::E5M2, DType::E4M3, DType::BF16, ScaleMode::Tensor},
      {2048, 2048, 1024, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Row,
       "gelu_tanh(acc + bias[n]); aux = acc + bias[n]"},
      {1536, 1024, 2048, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Tensor, "relu(acc * scale_a) * scale_b"},
      {4096, 4096, 2048, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Tensor, nullptr, true},
      // Block scales: 192x128 tiles (three consumer warpgroups, clusters, stream-K) and 128x128
      // ones, a K tail and edge tiles with a fused epilogue, decode in 64x128 tiles, a batch, e5m2
      // with e4m3.
      {4096, 4096, 4096, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Block128},
      {2048, 2048, 2048, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Block128},
      {2000, 3000, 4000, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Block128, "gelu_tanh(acc + bias[n])"},
      {16, 8192, 2048, 1, DType::E4M3, DType::E4M3, DType::BF16, ScaleMode::Block128},
      {640, 1152, 1024, 2, DType::E5M2, DType::E4M3, DType::FP16, ScaleMode::Block128},
  };
  std::vector<GemmCase> cases;
  for (const Row& r : rows) {
    scheduler::MatmulProblem p;
    p.m = r.m, p.n = r.n, p.k = r.k, p.batch = r.batch;
    p.a_dtype = r.a, p.b_dtype = r.b, p.out_dtype = r.out;
    p.scale = r.scale;
    if (r.epilogue) p.epilogue = ir::Epilogue::parse(r.epilogue);
    GemmCase c{p.validate(), {}};
    c.overrides.arch = scheduler::Arch::Sm90;
    if (r.pingpong) c.overrides.pingpong = true;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace tilegrid::testing
