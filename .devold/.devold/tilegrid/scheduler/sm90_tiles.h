#pragma once
// How sm_90 kernels' CTA tiles and clusters are chosen: the rules chooseParams applies, in its order.
// Each sets the tile (with its warpgroup and instruction tiles) and the cluster in `p`, and returns
// the rule that decided, in words, for the schedule's decision trace. Internal to the scheduler.
#include <optional>
#include <string>

#include <vector>

#include "tilegrid/scheduler/decision_trace.h"
#include "tilegrid/scheduler/params.h"

namespace tilegrid::scheduler {

// The rows of one wgmma (m64nNk16): the M extent an sm_90 consumer warpgroup computes at least.
inline constexpr int64_t kWgmmaRows = 64;

// Whether tiles of cta_m x cta_n give at least half the SMs one each.
bool givesHalfTheSmsATile(const MatmulProblem& problem, const DeviceSpec& device, int64_t cta_m, int64_t cta_n);

// A consumer warpgroup of `consumer_rows` rows (64 or 128) and the tile's whole width.
void setSm90Tile(MatmulParams& p, const TileShape& cta, int64_t consumer_rows = 64);

// Pairs of CTAs along M where the grid has two tile rows or more (persistent kernels).
ClusterShape pairedCluster(const MatmulProblem& problem, const MatmulParams& p);

// The tile widths a rule picks among (multiples of kLaunchWidthStep). Where a kernel can read its
// tile's width at launch, it holds the run of them that fit as many stages (launchWidthRun), so that
// the rule's widths share kernels.
struct WidthRange {
  int64_t narrowest = 0, widest = 0;
};
// fitOneWaveSm90's 128-row tiles.
inline constexpr WidthRange kOneWaveFitWidths{112, 256};
// chooseSmallTileSm90's 64-row tiles trimmed to the problem's width.
inline constexpr WidthRange kTrimmedNarrowWidths{64, 128};

// The ranked tile, else the small-problem rules, for the kernel problem (swap_ab already decided).
// Where the ranking decides, `ranked` gets every shape it scored; where a rule picks the width among
// a range, `widths` gets the range (else nothing).
std::string chooseTilesSm90(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p,
                            std::vector<Candidate>& ranked, std::optional<WidthRange>& widths);

// 128-row tiles as wide as fill one wave, replacing the choice where it pays (the caller's problem:
// it may turn the problem around). Nothing where it does not apply.
std::optional<std::string> fitOneWaveSm90(const MatmulProblem& user_problem, const DeviceSpec& device,
                                          MatmulParams& p);

// M or N of at most half a wgmma's rows: the small side as wgmma's N (decides swap_ab as well).
bool narrowSideSm90(const MatmulProblem& problem);
std::string setNarrowTileSm90(const MatmulProblem& problem, const DeviceSpec& device, MatmulParams& p);

// One tile cut in step, few K tiles under a wave, or batched: smaller tiles or no cluster. Nothing
// where none applies.
std::optional<std::string> shortOrOneTileSm90(const MatmulProblem& problem, const DeviceSpec& device,
                                              MatmulParams& p);

}  // namespace tilegrid::scheduler
