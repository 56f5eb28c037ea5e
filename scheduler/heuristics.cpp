#include "scheduler/heuristics.h"

#include <algorithm>

#include "ir/error.h"
#include "scheduler/grid_model.h"

namespace tilegrid::scheduler {
namespace {

constexpr int64_t kMaxStagesSm80 = 4;
constexpr int64_t kMaxStagesSm90 = 8;

// sm_80: 128x256x64 CTAs of eight 64x64 warps, the best of bench/sm80_tile_sweep.sh on an H100
// from 2048^3 up. Smaller problems take the largest tile that still gives at least half the SMs a
// CTA: 1000^3 on an H100 runs at 77 TFLOP/s with 128x256 (32 CTAs), 141 with 64x128 (128 CTAs);
// 2048x1024x1024: 186 with 128x256, 286 with 128x128 (four 64x64 warps, two CTAs an SM). A
// misaligned operand gathers its pieces in registers, which 64x64 warps cannot afford without
// spilling: those get 128x128x64 with 64x32 warps. 64x64x64 with four 32x32 warps when either
// output dimension is small.
bool bothOperandsAligned(const MatmulProblem& problem) {
  return problem.align_a * bytes(problem.a_dtype) >= 16 && problem.align_b * bytes(problem.b_dtype) >= 16;
}

void chooseTilesSm80(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p) {
  p.instruction_tile = TileShape{16, 8, 16};
  if (problem.m <= 64 || problem.n <= 64) {
    p.cta_tile = TileShape{64, 64, 64};
    p.warp_tile = TileShape{32, 32, 64};
    return;
  }
  if (!bothOperandsAligned(problem)) {
    p.cta_tile = TileShape{128, 128, 64};
    p.warp_tile = TileShape{64, 32, 64};
    return;
  }
  struct Choice {
    TileShape cta, warp;
  };
  static constexpr Choice kLargestFirst[] = {{{128, 256, 64}, {64, 64, 64}},
                                             {{128, 128, 64}, {64, 64, 64}},
                                             {{64, 128, 64}, {32, 64, 64}},
                                             {{64, 64, 64}, {32, 32, 64}}};
  for (const Choice& c : kLargestFirst) {
    p.cta_tile = c.cta;
    p.warp_tile = c.warp;
    const int64_t tiles = ceilDiv(problem.m, c.cta.m) * ceilDiv(problem.n, c.cta.n) * problem.batch;
    if (2 * tiles >= device.sm_count) return;
  }
}

// sm_90: 128x256x64 with two consumer warpgroups of 64x256 (wgmma m64n256k16); 128x128 when N is
// small; one consumer warpgroup of 64xN when M is small.
void chooseTilesSm90(const MatmulProblem& problem, MatmulParams& p) {
  const int64_t cta_n = problem.n <= 128 ? 128 : 256;
  const int64_t cta_m = problem.m <= 64 ? 64 : 128;
  p.cta_tile = TileShape{cta_m, cta_n, 64};
  p.warp_tile = TileShape{64, cta_n, 64};
  p.instruction_tile = TileShape{64, cta_n, 16};
}

// The warp (sm_80) or warpgroup (sm_90) tile that fits a user's CTA tile: the heuristic's when it
// divides, else the largest legal one.
void fitWarpTile(const MatmulProblem& problem, MatmulParams& p) {
  const TileShape& c = p.cta_tile;
  if (p.arch == Arch::Sm80) {
    const std::vector<int64_t> widths = bothOperandsAligned(problem) ? std::vector<int64_t>{64, 32, 16}
                                                                     : std::vector<int64_t>{32, 16};
    for (int64_t wm : {64, 32, 16}) {
      for (int64_t wn : widths) {
        if (c.m % wm == 0 && c.n % wn == 0 && (c.m / wm) * (c.n / wn) <= 16) {
          p.warp_tile = TileShape{wm, wn, c.k};
          return;
        }
      }
    }
    p.warp_tile = TileShape{c.m, c.n, c.k};  // rejected with a clear message by validate()
    return;
  }
  // A consumer warpgroup per 64 rows: one wgmma m64nNk16 a k16 step each.
  const int64_t groups = c.m % 64 == 0 && c.m / 64 <= kMaxConsumersSm90 ? c.m / 64 : 1;
  p.warp_tile = TileShape{c.m / groups, c.n, c.k};
  int64_t n = std::min<int64_t>(c.n, 256);
  while (n > 8 && c.n % n != 0) n -= 8;
  p.instruction_tile = TileShape{64, n, 16};
}

void chooseEpilogue(const MatmulProblem& problem, MatmulParams& p) {
  if (p.arch == Arch::Sm80) {
    // Every warp stages 16 rows of its tile at a time: one slab per warp.
    p.epilogue_tile = TileShape{16 * p.mathGroups(), p.warp_tile.n, 1};
  } else {
    // Column slabs of up to 128 bytes, the widest a TMA store box with 128B swizzle takes; narrower
    // (64, 32, 16 bytes) when the CTA tile's n is not a multiple of that (n = 160, 200, 224).
    int64_t span = std::min(p.cta_tile.n, 128 / bytes(problem.out_dtype));
    while (span * bytes(problem.out_dtype) > 16 && p.cta_tile.n % span != 0) span /= 2;
    p.epilogue_tile = TileShape{p.cta_tile.m, span, 1};
  }
  p.smem_epilogue = chooseSmemAtom(Major::K, problem.out_dtype, p.epilogue_tile.n);
}

int64_t mostStages(const MatmulProblem& problem, const DeviceSpec& device, const MatmulParams& params) {
  const int64_t cap = params.arch == Arch::Sm80 ? kMaxStagesSm80 : kMaxStagesSm90;
  // Stages that fit with `ctas` CTAs an SM.
  const auto fitting = [&](int64_t ctas) {
    MatmulParams p = params;
    p.stages = 2;
    while (p.stages < cap) {
      MatmulParams more = p;
      more.stages = p.stages + 1;
      if (ctas * more.smemBytes(problem) > device.smem_per_block) break;
      p.stages = more.stages;
    }
    return p.stages;
  };
  // An sm_80 CTA of four warps wants a second one beside it on the SM (eight warps to hide latency),
  // as long as that leaves it three stages.
  if (params.arch == Arch::Sm80 && params.threadsPerCta() <= 128) {
    const int64_t paired = fitting(2);
    if (paired >= 3) return paired;
  }
  return fitting(1);
}

}  // namespace

int64_t waveCtas(const MatmulParams& params, const MatmulProblem& problem, const DeviceSpec& device) {
  return device.sm_count * params.ctasPerSm(problem, device);
}

MatmulParams chooseParams(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides) {
  device.validate();
  MatmulParams p;
  p.arch = overrides.arch.value_or(device.arch());
  if (p.arch == Arch::Sm80) {
    chooseTilesSm80(problem, device, p);
  } else {
    chooseTilesSm90(problem, p);
  }
  if (overrides.cta_tile) {
    p.cta_tile = *overrides.cta_tile;
    TG_USER_CHECK(p.cta_tile.m >= 8 && p.cta_tile.n >= 8 && p.cta_tile.k >= 16 && p.cta_tile.m % 8 == 0 &&
                  p.cta_tile.n % 8 == 0 && p.cta_tile.k % 16 == 0)
        << "cta tile " << p.cta_tile.toString()
        << ": m and n must be multiples of 8 and k a multiple of 16 (16-byte smem rows, k16 instructions)";
    fitWarpTile(problem, p);
  }
  if (overrides.warp_tile) {
    p.warp_tile = *overrides.warp_tile;
    p.warp_tile.k = p.cta_tile.k;
    if (p.arch == Arch::Sm90) p.instruction_tile = TileShape{64, p.warp_tile.n, 16};
  }
  p.smem_a = chooseSmemAtom(majorOfA(problem.layout), problem.a_dtype,
                            majorOfA(problem.layout) == Major::K ? p.cta_tile.k : p.cta_tile.m);
  p.smem_b = chooseSmemAtom(majorOfB(problem.layout), problem.b_dtype,
                            majorOfB(problem.layout) == Major::K ? p.cta_tile.k : p.cta_tile.n);
  chooseEpilogue(problem, p);
  // 16-byte copies where the operand's alignment allows.
  p.vec_a = std::min<int64_t>(16 / bytes(problem.a_dtype), problem.align_a);
  p.vec_b = std::min<int64_t>(16 / bytes(problem.b_dtype), problem.align_b);
  // Persistent CTAs by default on both families. sm_80 (H100, 256x128 and 128x256 tiles): the next
  // tile's loads overlap the current tile's last K tiles and its epilogue, 2-11% over one CTA per tile.
  p.persistent = overrides.persistent.value_or(true);
  // sm_90: pairs of CTAs along M share their B tile by TMA multicast, which halves B's L2 reads
  // (measured on an H100 at 4096^3: 659 -> 706 TFLOP/s; 8192^3: 676 -> 770). A lone tile row has no pair.
  const int64_t tiles_m = (problem.m + p.cta_tile.m - 1) / p.cta_tile.m;
  if (p.arch == Arch::Sm90 && p.persistent && tiles_m >= 2) p.cluster = ClusterShape{2, 1};
  if (overrides.cluster_m) p.cluster = ClusterShape{*overrides.cluster_m, 1};
  // sm_90 persistent kernels share the last partial wave by K ranges: the tail of 4096^3 (3.88 waves
  // of 128x256 cluster pairs on 132 SMs) or 5000x3000x4096 (3.64) otherwise idles SMs.
  p.stream_k = overrides.stream_k.value_or(p.arch == Arch::Sm90 && p.persistent);

  // As many stages as fit, up to the arch's cap. An sm_80 staged epilogue gives way where its slabs
  // would cost a stage (A100, fp32 output): a stage hides more than 16-byte stores save.
  if (overrides.stages) {
    p.stages = *overrides.stages;
  } else {
    p.stages = mostStages(problem, device, p);
    if (p.arch == Arch::Sm80 && p.stagedEpilogue(problem)) {
      MatmulParams direct = p;
      direct.stage_epilogue = false;
      if (mostStages(problem, device, direct) > p.stages) {
        p.stage_epilogue = false;
        p.stages = mostStages(problem, device, p);
      }
    }
  }

  const TrafficEstimate best =
      chooseGridTraversal(problem, p.cta_tile.m, p.cta_tile.n, waveCtas(p, problem, device), device.l2_bytes);
  p.grid = GridTraversal{GridMethod::SwizzleMerge, {best.factor}, best.group};
  if (overrides.method) p.grid.method = *overrides.method;
  if (overrides.group) p.grid.group = *overrides.group;
  if (overrides.factors) {
    p.grid.factors = *overrides.factors;
  } else if (p.grid.method == GridMethod::None) {
    p.grid.factors = {1};
  }
  p.validate(problem, device);
  return p;
}

}  // namespace tilegrid::scheduler
