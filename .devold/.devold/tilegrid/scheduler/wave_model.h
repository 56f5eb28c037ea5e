#pragma once
// How well a CTA tile fits a problem on a persistent grid: the share of the padded tile grid that
// is real output, times the share of the waves' time the SMs are busy. The sm_90 heuristic ranks
// tile shapes by it, each weighed by its measured full-wave speed.
#include <cmath>
#include <cstdint>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

struct WaveFit {
  int64_t units = 0;     // work units (cluster tiles) over the whole problem
  int64_t slots = 0;     // units that run at once: resident clusters
  double waves = 0;      // units / slots
  double useful = 0;     // M * N * batch over the padded output the units cover
  double busy = 0;       // waves over the time they take
  double score() const { return useful * busy; }
  // How full the last wave is: 1 for whole waves.
  double lastWave() const { return waves - std::ceil(waves) + 1; }
};

// `slots` units run at once. Stream-K (when on) shares a last wave where the kernel's split
// (planWorkSplit) cuts it: the shared wave then costs its own share of the work spread over every
// slot, plus a fixed 0.26 of a wave for the hand-overs and the cut units' uneven ends (set where a
// cut last wave ran as fast as the whole waves the model gives it, docs/findings.md). An unshared
// last wave runs as a whole wave. The ranking's modelled times, which rest on this, are held to the
// suite's runs, cut problems included, by tests/unit/tile_model_test.cpp.
WaveFit fitWaves(const MatmulProblem& problem, int64_t cta_m, int64_t cta_n, int64_t cta_k, int64_t cluster_m,
                 int64_t slots, bool stream_k);

}  // namespace tilegrid::scheduler
