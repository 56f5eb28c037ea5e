#pragma once
// sm_90: whether the consumer warpgroups share each tile (cooperative) or take whole tiles in turns
// (ping-pong, MatmulParams::pingpong), from a timeline model of the two kernels.
//
// The cooperative kernel compared is the ranked 128x256 tile (two warpgroups of 64x256), the ping-pong
// kernel 128x128 tiles alone (a warpgroup holds 128x128: as many accumulators). Times are in units of
// one 128x128 tile's main loop at the cooperative kernel's speed (proportional to K). A tile's
// epilogue takes
//   e = (output_byte * C's bytes + aux_byte * aux bytes stored by the threads
//        + aux_by_tma_byte * aux bytes stored by TMA beside C (auxFitsSlab)
//        + matrix_byte * c and residual bytes read by the threads
//        + matrix_by_tma_byte * c bytes loaded by TMA beside C (cFitsSlab)
//        + special_function * special functions
//        + bias * [reads a bias]) / K
// of it (per output element; the plain GEMM's store of C is an epilogue too). On n 128x128 tiles a
// CTA (the problem's over the SMs):
// - cooperative: both warpgroups run each 128x256 tile's main loop, then its epilogue, with the
//   tensor cores idle: n (1 + e / 2), stream-K sharing the last wave;
// - ping-pong: one warpgroup's epilogue runs under the other's main loop, which is
//   pingpong_main_loop_loss slower (a 128x128 tile loads more operand bytes per multiply), and only the
//   last epilogue shows: max(N (1 + loss) + e, N / 2 (1 + loss + e)) for N = ceil(n) whole tiles, the
//   second where the epilogues outlast the main loops.
// Ping-pong where it is modelled faster. The constants (ConsumerModelCosts) are the least-squares fit,
// on the log of the modelled over the measured time ratio, to the datasets of
// bench/suites/consumers.json: docs/results/consumers_h100.csv, and for the aux and matrix costs the
// problems with an aux output or a matrix c, stored or read by the threads
// (consumers_aux_threads_h100.csv, consumers_c_threads_h100.csv) and by TMA (consumers_aux_h200.csv,
// consumers_c_h200.csv). tests/unit/consumer_model_test.cpp holds the fit, refits the costs to the
// datasets, and holds the choices against the problems measured with today's kernels
// (consumers_h200.csv, consumers_aux_h200.csv, consumers_c_h200.csv). One main-loop loss for every
// problem is the model's limit: fitted to the nine TN shapes alone it comes out small, and ping-pong
// then loses where those shapes do not reach (docs/results/consumer_costs_refit_ab_h200.txt), which
// consumers_more_h200.csv now holds the choices to.
#include <optional>
#include <string>

#include "tilegrid/scheduler/params.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

// A 128x128 tile's epilogue time per output element and byte (or function, or bias) over its main
// loop's per unit of K, and ping-pong's main-loop loss: the model's fitted constants.
struct ConsumerModelCosts {
  double output_byte = 88;
  double aux_byte = 784;
  // Stored by TMA from a slab of its own, an aux output adds a stmatrix a slab block and a bulk store
  // issued by one thread: its least-squares fit sits at the bound, zero.
  double aux_by_tma_byte = 0;
  // Read by the threads, 16-byte pieces a lane.
  double matrix_byte = 214;
  // Loaded by TMA into slab buffers of its own (cSlab), the first two slabs while a cooperative
  // kernel's main loop runs: cheaper, as the loads no longer open the epilogue (docs/epilogues.md,
  // *The input c by TMA*).
  double matrix_by_tma_byte = 178;
  double special_function = 108;
  double bias = 159;
  // How much slower ping-pong's main loop runs than the cooperative kernel's.
  double pingpong_main_loop_loss = 0.035;
};
inline constexpr ConsumerModelCosts kConsumerModelCosts{};
// The tiles the model compares: the cooperative kernel's and the ping-pong kernel's.
inline constexpr TileShape kCooperativeTile{128, 256, 64};
inline constexpr TileShape kPingPongTile{128, 128, 64};
// The shortest K the dataset measured: the model is not applied below it.
inline constexpr int64_t kShortestModelledK = 768;

// The model's features of a problem's epilogue, per output element.
struct EpilogueFeatures {
  double output_bytes = 0, aux_bytes = 0, aux_by_tma_bytes = 0, matrix_bytes = 0, matrix_by_tma_bytes = 0;
  double special_functions = 0, bias = 0;
};
EpilogueFeatures epilogueFeatures(const MatmulProblem& problem);

struct ConsumerChoice {
  bool pingpong = false;
  double epilogue = 0;  // e: a tile's epilogue over its main loop
  double gain = 1;      // modelled cooperative time over ping-pong time
  std::string rule;
};

// The problem's kPingPongTile tiles, over its batch.
int64_t pingpongTiles(const MatmulProblem& problem);

// The model's choice for `problem` (validated) on `device`.
ConsumerChoice chooseConsumersSm90(const MatmulProblem& problem, const DeviceSpec& device);

// The same for an epilogue of features `f`, K and `tiles_per_sm` kPingPongTile tiles an SM, under
// `costs` (the fitted ones unless a fit tries others).
ConsumerChoice modelConsumers(const EpilogueFeatures& f, int64_t k, double tiles_per_sm,
                              const ConsumerModelCosts& costs = kConsumerModelCosts);

// Below kShortestModelledK the timeline above does not hold: a tile of a few K tiles is mostly its
// start and its epilogue, and ping-pong hides one warpgroup's behind the other's main loop, which the
// model's main-loop units do not count. That pays where nearly every CTA holds two 128x128 tiles (at
// least kShortKPingPongTilesPerSm an SM: four CTAs in five hold two); with a tile or less an SM there is
// nothing to hide it behind, and one consumer warpgroup of each CTA computes while the other idles.
// Measured on plain GEMMs of K = 64 to 512 (docs/results/short_k_tiles_h200.csv,
// consumers_short_k_h200.csv).
inline constexpr double kShortKPingPongTilesPerSm = 1.8;
// Ping-pong for a plain problem of K under kShortestModelledK, as above, or nothing where the rule
// does not apply.
std::optional<ConsumerChoice> chooseShortKConsumersSm90(const MatmulProblem& problem, const DeviceSpec& device);

}  // namespace tilegrid::scheduler
