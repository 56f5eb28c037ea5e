#include "tilegrid/scheduler/heuristics.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/consumer_model.h"
#include "tilegrid/scheduler/eight_bit_inputs.h"
#include "tilegrid/scheduler/grid_model.h"
#include "tilegrid/scheduler/kernel_family.h"
#include "tilegrid/scheduler/operand_padding.h"
#include "tilegrid/scheduler/sm90_tile_ranking.h"
#include "tilegrid/scheduler/sm90_tiles.h"
#include "tilegrid/scheduler/tile_eligibility.h"
#include "tilegrid/scheduler/wave_model.h"
#include "tilegrid/scheduler/work_split.h"

namespace tilegrid::scheduler {
namespace {

// The largest CTA or warp tile extent a user may ask for: far past what shared memory holds, small
// enough that tile counts and products of extents stay in 64 bits.
constexpr int64_t kMaxTileExtent = 4096;


constexpr int64_t kMaxStagesSm80 = 4;
constexpr int64_t kMaxStagesSm90 = 8;


// sm_80: 128x256x64 CTAs of eight 64x64 warps, the best of a sweep of `tilegrid run --arch sm_80
// --cta-tile` on an H100 from 2048^3 up. Smaller problems take the largest tile that still gives at least
// half the SMs a CTA: an SM without one idles for the whole kernel, which costs more than the smaller
// tile's extra operand reads (figures: docs/findings.md, *sm_80 kernels*). A misaligned operand gathers its
// pieces in registers, which 64x64 warps cannot afford without spilling: those get 128x128x64 with 64x32
// warps. 64x64x64 with four 32x32 warps when either output dimension is small.
std::string chooseTilesSm80(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p) {
  p.instruction_tile = TileShape{16, 8, 16};
  if (problem.m <= 64 || problem.n <= 64) {
    p.cta_tile = TileShape{64, 64, 64};
    p.warp_tile = TileShape{32, 32, 64};
    return "chooseTilesSm80: M or N of 64 or less: 64x64 with four 32x32 warps";
  }
  if (!bothOperandsAligned(problem)) {
    p.cta_tile = TileShape{128, 128, 64};
    p.warp_tile = TileShape{64, 32, 64};
    return "chooseTilesSm80: a misaligned operand gathers its pieces in registers: 128x128 with 64x32 warps";
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
    if (givesHalfTheSmsATile(problem, device, c.cta.m, c.cta.n)) break;
  }
  return "chooseTilesSm80: the largest tile whose tiles give half the SMs one";
}

// Where M or N is under 128 the kernel is bound by reading the larger operand, and only as many SMs
// read it as there are work units: 64x64x65536 is one tile, whose one CTA walks all of K while 131
// SMs idle. Cut in step (inStepPieces), every unit is split into pieces of its K range, one a
// cluster, so that pieces x units SMs read at once and each piece's partial sum is handed over once.
// That needs at most half a wave of units (two pieces or more each); over that, cutting takes the
// last wave's tiles apart instead, which does not pay when reading bounds the problem: the reads
// take as long either way, and the hand-overs add to them (docs/findings.md).
void cutSmallProblemsInStep(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p) {
  if (p.arch != Arch::Sm90 || !p.persistent || p.stream_k) return;
  const int64_t cluster = p.cluster.m * p.cluster.n;
  const int64_t units = ceilDiv(ceilDiv(problem.m, p.cta_tile.m), p.cluster.m) * ceilDiv(problem.n, p.cta_tile.n) *
                        problem.batch;
  p.stream_k = inStepPieces(units, device.sm_count / cluster, ceilDiv(problem.k, p.cta_tile.k)) >= 2;
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
  // A consumer warpgroup per 64 rows (one wgmma m64nNk16 a k16 step each), or per 128 where 64-row
  // warpgroups would be more than the kernel takes or short of registers.
  int64_t n = std::min<int64_t>(c.n, 256);
  while (n > 8 && c.n % n != 0) n -= 8;
  p.instruction_tile = TileShape{64, n, 16};
  for (int64_t rows : {64, 128}) {
    p.warp_tile = TileShape{rows, c.n, c.k};
    if (c.m % rows == 0 && p.mathGroups() <= kMaxConsumersSm90 && p.sm90AccumulatorsFit()) return;
  }
  // None fits: validate() says why, for 64-row warpgroups.
  const int64_t groups = c.m % 64 == 0 ? c.m / 64 : 1;
  p.warp_tile = TileShape{c.m / groups, c.n, c.k};
}

// The epilogue slab and the smem atom its width takes. Stored transposed (swap_ab), the slab is
// m-contiguous: a consumer's rows are C's columns, in TMA boxes of 64 elements.
void setEpilogueTile(const MatmulProblem& problem, MatmulParams& p, const TileShape& slab) {
  p.epilogue_tile = slab;
  p.smem_epilogue = epilogueAtom(problem.out_dtype, slab.n, p.swap_ab);
}

void chooseEpilogue(const MatmulProblem& problem, MatmulParams& p) {
  if (p.arch == Arch::Sm80) {
    // Every warp stages 16 rows of its tile at a time: one slab per warp.
    setEpilogueTile(problem, p, TileShape{16 * p.mathGroups(), p.warp_tile.n, 1});
  } else {
    // Column slabs of 128 bytes, the widest a TMA store box with 128B swizzle takes (a tile narrower
    // than that takes the widest power-of-two share that fits). A tile width that is not a multiple
    // of it takes 64-byte slabs where they divide it, and otherwise ends on a slab overlapping the
    // one before: fewer, wider store boxes beat narrow slabs that divide the width exactly
    // (docs/findings.md, *Measurements behind the tile rules*).
    const int64_t esize = bytes(problem.out_dtype), n = p.compiledTile().n;
    int64_t span = 128 / esize;
    while (span > n) span /= 2;
    if (n % span != 0 && n % (span / 2) == 0 && span / 2 * esize >= 64) span /= 2;
    setEpilogueTile(problem, p, TileShape{p.epilogueRows(), span, 1});
  }
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

// sm_90: the tile widths that share a kernel with `p`'s where the launch picks the width: the run of
// widths around it (multiples of kLaunchWidthStep within `range`)
// whose tiles, compiled each on its own, fit as many stages. The kernel is laid out for the widest
// of them, so each width keeps its stages: a narrow tile's K tiles are short, and a ring of the
// widest tile's fewer stages left it waiting on its loads.
std::pair<int64_t, int64_t> launchWidthRun(const MatmulProblem& problem, const DeviceSpec& device, const MatmulParams& p,
                                           WidthRange range) {
  const auto stagesAt = [&](int64_t width) {
    MatmulParams alone = p;
    alone.width_at_launch = false;
    alone.cta_tile.n = alone.warp_tile.n = alone.instruction_tile.n = width;
    chooseEpilogue(problem, alone);
    return mostStages(problem, device, alone);
  };
  const int64_t stages = stagesAt(p.cta_tile.n);
  int64_t narrowest = p.cta_tile.n, widest = p.cta_tile.n;
  while (narrowest - kLaunchWidthStep >= range.narrowest && stagesAt(narrowest - kLaunchWidthStep) == stages) {
    narrowest -= kLaunchWidthStep;
  }
  while (widest + kLaunchWidthStep <= range.widest && stagesAt(widest + kLaunchWidthStep) == stages) {
    widest += kLaunchWidthStep;
  }
  return {narrowest, widest};
}

// sm_90: a tile whose double-buffered epilogue slabs leave it fewer than four stages takes narrower
// slabs, halved until it has four, as long as every row of a TMA store box keeps 64 contiguous bytes
// (a slab's width when stored straight; stored transposed the boxes run 64 elements along m whatever
// the width). A fourth stage hides more of the loads than the wider slabs save in stores
// (docs/findings.md, *sm_90a kernels on large problems*). Of the slabs giving the most stages, the
// widest: the slab is then a function of the tile and its stages in either orientation, so a kernel
// holding both orientations of C (cOrientationAtLaunch) is the same kernel for problems of either.
void narrowEpilogueForStages(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p) {
  // Ping-pong kernels want more: a warpgroup's turn starts on stages the producer filled during the
  // other's, and their slab buffers are twice as large (a tile a warpgroup). Their 128x128 tiles
  // hold six stages with 32-column slabs instead of five with 64: more of the next turn's stages
  // land during the other warpgroup's turn. Where the epilogue reads a matrix, the narrower slabs
  // halve its row pieces in flight, and five stages win. (The ping-pong rows of the consumer
  // datasets, docs/results/consumers_*.csv, measure both.)
  constexpr int64_t kWantedStages = 4, kWantedStagesPingPong = 6;
  if (p.arch != Arch::Sm90) return;
  const bool reads_matrix = problem.epilogueUses(ir::EpOp::C) || problem.epilogueUses(ir::EpOp::Residual);
  const int64_t wanted = !p.pingpong ? kWantedStages : reads_matrix ? kWantedStagesPingPong - 1 : kWantedStagesPingPong;
  MatmulParams narrow = p;
  while (p.stages < wanted && narrow.epilogue_tile.n % 16 == 0 &&
         (p.swap_ab || narrow.epilogue_tile.n / 2 * bytes(problem.out_dtype) >= 64)) {
    setEpilogueTile(problem, narrow, TileShape{p.epilogue_tile.m, narrow.epilogue_tile.n / 2, 1});
    narrow.stages = mostStages(problem, device, narrow);
    if (narrow.stages > p.stages) p = narrow;
  }
}

}  // namespace

int64_t waveCtas(const MatmulParams& params, const MatmulProblem& problem, const DeviceSpec& device) {
  return device.sm_count * params.ctasPerSm(problem, device);
}

namespace {

// sm_90 kernels read the traversal's factor, the cluster size and C's orientation and way of storing
// C at launch where they can, so that problems differing in them share a kernel. That costs each
// launch a fixed time, most of it before the first load (the kernel's code and parameters on the path
// to the first TMA load are fetched cold), whatever the kernel's length: the choices are compiled in
// (docs/runtime-shapes.md) for problems whose M and N are both at most kLargestSideForFixedChoices,
// and for decode problems, whose smaller side is at most kNarrowestSideForFixedChoices: those run
// tens of microseconds, streaming a weight once, so the fixed time is a few percent of each.
// The bound keeps one kernel per configuration for an application sweeping the token count against
// a larger fixed weight; below it the tile changes with M and N often enough that compiling the
// choices in adds few kernels, and at the decode sizes the narrow tiles change with every few rows.
template <typename Decide>
void chooseFixedChoices(const MatmulProblem& kernel, const ScheduleOverrides& overrides, MatmulParams& p,
                        Decide& decide) {
  constexpr int64_t kLargestSideForFixedChoices = 2048, kNarrowestSideForFixedChoices = 64;
  if (p.arch != Arch::Sm90 || !p.shapeAtLaunch()) return;
  if (overrides.launch_choices_compiled) {
    p.launch_choices_compiled = *overrides.launch_choices_compiled;
    decide("launch choices", p.launch_choices_compiled ? "compiled in" : "read at launch", "override");
    return;
  }
  // A fused epilogue is unrolled over the accumulators in every instance of the epilogue, and a kernel
  // reading its choices at launch holds one instance per orientation of C and way of storing it: four
  // copies of that code, fetched cold by every tile's epilogue (docs/epilogues.md). Compiled in, there
  // is one.
  if (!kernel.epilogue.isIdentity()) {
    p.launch_choices_compiled = true;
    decide("launch choices", "compiled in",
           "chooseFixedChoices: a fused epilogue is instanced once per launch choice the kernel holds");
    return;
  }
  p.launch_choices_compiled = std::max(kernel.m, kernel.n) <= kLargestSideForFixedChoices ||
                              std::min(kernel.m, kernel.n) <= kNarrowestSideForFixedChoices;
  decide("launch choices", p.launch_choices_compiled ? "compiled in" : "read at launch",
         fmt::format("chooseFixedChoices: compiled in where M and N are at most {} or one of them at most {}",
                     kLargestSideForFixedChoices, kNarrowestSideForFixedChoices));
}

}  // namespace

namespace {

MatmulParams chooseParams16(const MatmulProblem& user_problem, const DeviceSpec& device,
                            const ScheduleOverrides& overrides, const FamilyChoice& family, DecisionTrace& decisions) {
  const auto decide = [&](const std::string& what, const std::string& choice, const std::string& rule) {
    decisions.push_back({what, choice, rule, {}});
  };
  MatmulParams p;
  p.arch = family.arch;
  decide("arch", toString(p.arch), family.rule);
  // Persistent CTAs by default on both families. sm_80 (H100, 256x128 and 128x256 tiles): the next
  // tile's loads overlap the current tile's last K tiles and its epilogue, 2-11% over one CTA per tile.
  p.persistent = overrides.persistent.value_or(true);
  decide("persistent", p.persistent ? "on" : "off", overrides.persistent ? "override" : "default: on for both families");
  // sm_90 persistent kernels share the last partial wave by K ranges: the tail of 4096^3 (3.88 waves
  // of 128x256 cluster pairs on 132 SMs) or 5000x3000x4096 (3.64) otherwise idles SMs. Not where M
  // or N is under 128: such a problem streams the larger operand from DRAM once, which cutting the
  // last wave does not speed up; cutSmallProblemsInStep turns it on there for problems of at most
  // half a wave.
  p.stream_k = overrides.stream_k.value_or(p.arch == Arch::Sm90 && p.persistent &&
                                           std::min(user_problem.m, user_problem.n) >= 128);
  // sm_90: wgmma's M runs along whichever of M and N the ranking fits better (a user's tile keeps the
  // problem's orientation unless swap_ab says otherwise). Everything below schedules that problem.
  p.swap_ab = overrides.swap_ab.value_or(p.arch == Arch::Sm90 && p.persistent && !overrides.cta_tile &&
                                         rankOrientations(user_problem, device, p.stream_k).swap);
  const std::string orientation_rule =
      overrides.swap_ab ? "override"
      : overrides.cta_tile ? "a user's tile keeps the problem's orientation"
      : p.arch == Arch::Sm90 && p.persistent
          ? "rankOrientations: C^T where N is 64 or less under a larger M, or its ranked choice scores 1% higher"
          : "C = A B (only persistent sm_90 kernels compute C^T by default)";
  // Misaligned operands: sm_90 reads padded copies of all of them (TMA), sm_80 of those where the
  // copy pays. An sm_80 kernel then sees the padded operands aligned and schedules for that; an sm_90
  // kernel decides after the one-wave fit, which may turn the problem around.
  const auto padded = [&](const MatmulProblem& kernel, char operand) {
    if (overrides.pad) return *overrides.pad && operandMisaligned(kernel, operand);
    return p.arch == Arch::Sm90 ? operandMisaligned(kernel, operand) : padPaysSm80(kernel, operand);
  };
  const auto choosePads = [&] {
    const MatmulProblem kernel = p.kernelProblem(user_problem);
    p.pad_a = padded(kernel, 'a');
    p.pad_b = padded(kernel, 'b');
  };
  // The widths the rule that chose the tile picked among (they may share a kernel, below).
  std::optional<WidthRange> width_range;
  if (p.arch == Arch::Sm80) {
    choosePads();
    decide("tile", p.cta_tile.toString(),
           chooseTilesSm80(alignedByPadding(p.kernelProblem(user_problem), p.pad_a, p.pad_b), device, p));
  } else if (p.persistent && !overrides.swap_ab && !overrides.cta_tile && narrowSideSm90(user_problem)) {
    const std::string rule = setNarrowTileSm90(user_problem, device, p);
    decide("orientation", p.swap_ab ? "C^T = B^T A^T" : "C = A B", rule);
    decide("tile", p.cta_tile.toString(), rule);
    choosePads();
  } else {
    std::vector<Candidate> ranked;
    std::string rule = chooseTilesSm90(p.kernelProblem(user_problem), device, p, ranked, width_range);
    bool turned = false;
    // A later rule replaces the ranking's choice, and with it the candidates the ranking weighed.
    if (!overrides.swap_ab && !overrides.cta_tile) {
      if (const auto fit = fitOneWaveSm90(user_problem, device, p)) {
        rule = *fit, turned = true, width_range = kOneWaveFitWidths, ranked.clear();
      }
    }
    if (p.persistent && !overrides.cta_tile && !overrides.cluster_m) {
      const TileShape before = p.cta_tile;
      if (const auto small = shortOrOneTileSm90(p.kernelProblem(user_problem), device, p)) {
        rule = *small, ranked.clear();
        if (p.cta_tile != before) width_range.reset();
      }
    }
    decide("orientation", p.swap_ab ? "C^T = B^T A^T" : "C = A B", turned ? rule : orientation_rule);
    decide("tile", p.cta_tile.toString(), rule);
    decisions.back().candidates = std::move(ranked);
    choosePads();
  }
  if (p.arch == Arch::Sm80) decide("orientation", "C = A B", orientation_rule);
  const MatmulProblem problem = p.arch == Arch::Sm80
                                    ? alignedByPadding(p.kernelProblem(user_problem), p.pad_a, p.pad_b)
                                    : p.kernelProblem(user_problem);
  if (overrides.cta_tile) {
    p.cta_tile = *overrides.cta_tile;
    TG_USER_CHECK(p.cta_tile.m >= 8 && p.cta_tile.n >= 8 && p.cta_tile.k >= 16 && p.cta_tile.m % 8 == 0 &&
                  p.cta_tile.n % 8 == 0 && p.cta_tile.k % 16 == 0)
        << "cta tile " << p.cta_tile.toString()
        << ": m and n must be multiples of 8 and k a multiple of 16 (16-byte smem rows, k16 instructions)";
    // Checked before any tile count is computed from it (a tile near 2^63 overflows ceilDiv).
    TG_USER_CHECK(p.cta_tile.m <= kMaxTileExtent && p.cta_tile.n <= kMaxTileExtent && p.cta_tile.k <= kMaxTileExtent)
        << "cta tile " << p.cta_tile.toString() << ": every extent must be at most " << kMaxTileExtent;
    fitWarpTile(problem, p);
    p.cluster = p.arch == Arch::Sm90 ? pairedCluster(problem, p) : ClusterShape{1, 1};
    decide("tile", p.cta_tile.toString(), "override");
  }
  if (overrides.warp_tile) {
    TG_USER_CHECK(overrides.warp_tile->m >= 1 && overrides.warp_tile->n >= 1 &&
                  overrides.warp_tile->m <= kMaxTileExtent && overrides.warp_tile->n <= kMaxTileExtent)
        << "warp tile " << overrides.warp_tile->m << "x" << overrides.warp_tile->n << ": m and n must be from 1 to "
        << kMaxTileExtent;
    p.warp_tile = *overrides.warp_tile;
    p.warp_tile.k = p.cta_tile.k;
    if (p.arch == Arch::Sm90) p.instruction_tile = TileShape{64, p.warp_tile.n, 16};
  }
  // Ping-pong consumers: a user's choice, or the consumer model's where it compares what it was
  // fitted on: the rules above chose the cooperative 128x256 tile (the narrow-side and small-problem
  // rules choose others), K is at least the shortest the dataset measured, and every SM has a 128x128
  // tile at least.
  // Below that K, a rule measured on its own (chooseShortKConsumersSm90) over the cooperative tile or
  // the short units' 128x128 tiles.
  std::optional<ConsumerChoice> modelled;
  const bool consumers_free = !overrides.pingpong && p.arch == Arch::Sm90 && p.persistent && !overrides.cta_tile &&
                              !overrides.warp_tile && !overrides.stream_k && !overrides.cluster_m &&
                              overrides.method != GridMethod::SplitMerge && p.warp_tile.m == 64;
  if (consumers_free && p.cta_tile == kCooperativeTile && problem.k >= kShortestModelledK &&
      pingpongTiles(problem) >= device.sm_count) {
    modelled = chooseConsumersSm90(problem, device);
  } else if (consumers_free && (p.cta_tile == kCooperativeTile || p.cta_tile == kPingPongTile)) {
    modelled = chooseShortKConsumersSm90(problem, device);
  }
  if (overrides.pingpong.value_or(false) || (modelled && modelled->pingpong)) {
    p.pingpong = true;
    if (modelled) {
      p.cta_tile = kPingPongTile;
      width_range.reset();
      for (auto d = decisions.rbegin(); d != decisions.rend(); ++d) {
        if (d->what != "tile") continue;
        d->rule = fmt::format("ping-pong consumers (below) take {} tiles; the tile rule chose {} ({})",
                              kPingPongTile.toString(), d->choice, d->rule);
        d->choice = p.cta_tile.toString();
        break;
      }
    } else if (!overrides.cta_tile) {
      // A warpgroup's tile is the one it held sharing the chosen tile: as many accumulators, and the
      // pair of tiles in flight covers the chosen tile.
      p.cta_tile.m = p.warp_tile.m;
    }
    if (!overrides.warp_tile) p.warp_tile = p.cta_tile;
    if (p.arch == Arch::Sm90) p.instruction_tile = TileShape{64, p.warp_tile.n, 16};
    p.stream_k = overrides.stream_k.value_or(false);
    // Alone: in a cluster a stage waits for the warpgroups of every CTA whose turn it is, and the
    // CTAs' turns drift apart, and each CTA waits on the slowest (docs/epilogues.md, *Ping-pong
    // consumers*: docs/results/pingpong_clusters_h100.csv).
    p.cluster = ClusterShape{1, 1};
  }
  if (overrides.pingpong || modelled) {
    decide("consumers", p.pingpong ? "ping-pong (a tile a warpgroup, in turns)" : "cooperative (sharing each tile)",
           modelled ? modelled->rule
                    : overrides.cta_tile || !p.pingpong ? "override"
                                                        : "override: a warpgroup's tile is its share of the chosen tile");
  }
  if (overrides.cluster_m) p.cluster = ClusterShape{*overrides.cluster_m, 1};
  decide("cluster", std::to_string(p.cluster.m) + "x" + std::to_string(p.cluster.n),
         overrides.cluster_m ? "override" : p.pingpong ? "ping-pong kernels run alone (consumers, above)" : "with the tile (above)");
  // The widths a rule picks among (the one-wave fit's 112 to 256, trimmed 64-row tiles' 64 to 128)
  // share kernels that read the width at launch, where they can: tiles alone over a K-major B
  // (MatmulParams::width_at_launch), one kernel for each run of widths that fit as many stages
  // (launchWidthRun).
  if (overrides.cta_tile) width_range.reset();
  // Ping-pong kernels compile their width in by default: the GPU tests run none that holds several
  // widths (`--width-at-launch on` builds one).
  const bool holds_widths = p.arch == Arch::Sm90 && !overrides.specialize_shape.value_or(false) && !p.pingpong &&
                            p.cluster == ClusterShape{1, 1} && majorOfB(problem.layout) == Major::K;
  p.width_at_launch = overrides.width_at_launch.value_or(width_range && holds_widths && !overrides.warp_tile);
  if (p.width_at_launch) {
    std::tie(p.narrowest_width, p.widest_width) =
        launchWidthRun(problem, device, p, width_range.value_or(WidthRange{kLaunchWidthNarrowest, kLaunchWidthWidest}));
  }
  if (p.width_at_launch || overrides.width_at_launch) {
    decide("tile width", p.width_at_launch ? fmt::format("at launch ({} to {})", p.narrowest_width, p.widest_width) : "compiled in",
           overrides.width_at_launch ? "override"
                                     : "launchWidthRun: the rule's widths that fit as many stages share one kernel, "
                                       "laid out for the widest");
  }
  // A user's tiles and cluster are checked before anything computes with them (threads, waves).
  p.validateShape();
  const bool stream_k_before = p.stream_k;
  if (!overrides.stream_k && !p.pingpong) cutSmallProblemsInStep(problem, device, p);
  decide("stream-k", p.stream_k ? "on" : "off",
         overrides.stream_k                ? "override"
         : p.pingpong                     ? "ping-pong kernels take whole units"
         : p.stream_k && !stream_k_before ? "cutSmallProblemsInStep: M or N under 128, and the units fill at most "
                                            "half the SMs: the split may cut each into K pieces (work, below)"
         : p.stream_k                     ? "default: persistent sm_90 with M and N of 128 or more"
         : p.arch != Arch::Sm90 || !p.persistent ? "only persistent sm_90 kernels cut K"
                                                 : "M or N under 128 over half a wave: reading the larger operand bounds it");
  // Each copy's rows and the pitch they are padded to: what the copy writes and the kernel reads.
  const auto copy_of = [&](const char* name, DType type, int64_t contiguous) {
    return std::string(name) + " (" + std::to_string(contiguous * bytes(type)) + "-byte rows, pitch " +
           std::to_string(paddedPitchElems(type, contiguous) * bytes(type)) + ")";
  };
  decide("padded copies",
         std::string(p.pad_a ? copy_of("A", problem.a_dtype, problem.contiguousA()) : "") +
             (p.pad_a && p.pad_b ? " and " : "") + (p.pad_b ? copy_of("B", problem.b_dtype, problem.contiguousB()) : "") +
             (p.pad_a || p.pad_b ? "" : "none"),
         overrides.pad ? "override" : p.arch == Arch::Sm90 ? "sm_90: every operand whose rows are not 16-byte aligned (TMA)"
                                                           : "padPaysSm80: where the copy costs less than narrow loads");
  p.smem_a = chooseSmemAtom(majorOfA(problem.layout), problem.a_dtype,
                            majorOfA(problem.layout) == Major::K ? p.cta_tile.k : p.cta_tile.m);
  p.smem_b = chooseSmemAtom(majorOfB(problem.layout), problem.b_dtype,
                            majorOfB(problem.layout) == Major::K ? p.cta_tile.k : p.cta_tile.n);
  chooseEpilogue(problem, p);
  // 16-byte copies where the operand's alignment allows or it is padded.
  p.vec_a = p.pad_a ? granuleElems(problem.a_dtype) : std::min(granuleElems(problem.a_dtype), problem.align_a);
  p.vec_b = p.pad_b ? granuleElems(problem.b_dtype) : std::min(granuleElems(problem.b_dtype), problem.align_b);

  // As many stages as fit, up to the arch's cap. An sm_80 staged epilogue gives way where its slabs
  // would cost a stage (A100, fp32 output): a stage hides more than 16-byte stores save.
  if (overrides.stages) {
    p.stages = *overrides.stages;
    decide("stages", std::to_string(p.stages), "override");
  } else {
    p.stages = mostStages(problem, device, p);
    narrowEpilogueForStages(problem, device, p);
    if (p.arch == Arch::Sm80 && p.stagedEpilogue(problem)) {
      MatmulParams direct = p;
      direct.stage_epilogue = false;
      if (mostStages(problem, device, direct) > p.stages) {
        p.stage_epilogue = false;
        p.stages = mostStages(problem, device, p);
      }
    }
    decide("stages", std::to_string(p.stages),
           "mostStages: as many as fit in shared memory, up to " +
               std::to_string(p.arch == Arch::Sm80 ? kMaxStagesSm80 : kMaxStagesSm90) +
               (p.arch != Arch::Sm90 ? ""
                : p.pingpong        ? " (ping-pong: epilogue slabs narrowed where that buys a sixth, or a fifth where the "
                                      "epilogue reads a matrix)"
                                    : " (epilogue slabs narrowed where that buys a fourth)"));
  }

  // sm_80: column by column where B is K-major, where it measured faster and NT slower
  // (docs/findings.md, *Measurements behind the tile rules*). B's fragments come by non-transposing
  // ldmatrix where the order pays; why ptxas then interleaves the ldmatrix better is not understood.
  // Measured only where ptxas compiles the sm_80 family for sm_90: an Ampere device keeps rows.
  const bool columns_measured = device.cc_major >= 9 && majorOfB(problem.layout) == Major::K;
  p.mma_order = overrides.mma_order.value_or(p.arch == Arch::Sm80 && columns_measured ? MmaOrder::Columns : MmaOrder::Rows);

  const int64_t wave_ctas = waveCtas(p, problem, device);
  const std::vector<TrafficEstimate> traffic =
      estimateTraffic(problem, p.cta_tile.m, p.cta_tile.n, wave_ctas, device.l2_bytes);
  const TrafficEstimate best = leastTraffic(traffic, problem, p.cta_tile.m, p.cta_tile.n, wave_ctas);
  p.grid = GridTraversal{GridMethod::SwizzleMerge, {best.factor}, best.group};
  if (overrides.method) p.grid.method = *overrides.method;
  if (overrides.group) p.grid.group = *overrides.group;
  if (overrides.factors) {
    p.grid.factors = *overrides.factors;
  } else if (p.grid.method == GridMethod::None) {
    p.grid.factors = {1};
  }
  const bool traversal_overridden = overrides.method || overrides.group || overrides.factors;
  decide("grid traversal", p.grid.toString(),
         traversal_overridden
             ? "override"
             : fmt::format("chooseGridTraversal: the least modelled DRAM traffic, {:.1f} MB ({} CTAs a wave, panels of "
                           "{:.1f} MB)",
                           best.dram_bytes / 1e6, best.wave_ctas, static_cast<double>(best.panel_bytes) / 1e6));
  if (!traversal_overridden) {
    for (const TrafficEstimate& e : traffic) {
      decisions.back().candidates.push_back(
          {fmt::format("swizzle-merge factors={} group={}", e.factor, toString(e.group)), e.dram_bytes, "DRAM bytes"});
    }
  }
  p.specialize_shape = overrides.specialize_shape.value_or(false);
  p.deterministic = overrides.deterministic.value_or(false);
  const MatmulProblem kernel = p.kernelProblem(user_problem);
  p.wide_tile_grid = std::max(ceilDiv(kernel.m, p.cta_tile.m), ceilDiv(kernel.n, p.cta_tile.n)) > kNarrowTilesPerDim;
  chooseFixedChoices(kernel, overrides, p, decide);
  p.validate(user_problem, device);
  return p;
}

}  // namespace

MatmulParams chooseParams(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides,
                          DecisionTrace* trace) {
  device.validate();
  DecisionTrace local;
  DecisionTrace& decisions = trace ? *trace : local;
  decisions.clear();
  if (!isFp8(problem.a_dtype)) {
    MatmulParams p = chooseParams16(problem, device, overrides, chooseFamily(problem, device, overrides), decisions);
    chooseDotKernel(problem, device, overrides, p, decisions);
    // chooseParams16 validated the tiled params; the dot kernel's changes are validated here.
    if (p.dot) p.validate(problem, device);
    return p;
  }
  TG_USER_CHECK(overrides.arch.value_or(device.arch()) == Arch::Sm90)
      << "8-bit inputs (" << toString(problem.a_dtype) << ", " << toString(problem.b_dtype)
      << ") need sm_90a's wgmma k32; sm_80 kernels (mma.sync) take bf16 or fp16"
      << (device.arch() == Arch::Sm90 ? ": use arch sm_90" : ", and " + device.name + " is an sm_80-family device");
  MatmulParams p = chooseParams16(sixteenBitEquivalent(problem), device, sixteenBitOverrides(problem, device, overrides),
                                  deviceFamily(device, overrides), decisions);
  toEightBitInputs(p, problem, device, overrides, decisions);
  chooseDotKernel(problem, device, overrides, p, decisions);
  p.validate(problem, device);
  return p;
}

}  // namespace tilegrid::scheduler
