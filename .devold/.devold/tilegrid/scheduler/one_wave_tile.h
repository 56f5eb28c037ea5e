#pragma once
// sm_90: a tile width fitted so that a problem of about a wave fills the SMs once.
#include <optional>

#include "tilegrid/scheduler/params.h"

namespace tilegrid::scheduler {

struct OneWaveTile {
  bool swap_ab = false;  // computing C^T: the tile's rows run along the problem's N
  int64_t width = 0;     // the tile is 128 x width
  int64_t tiles = 0;
  double useful = 0;  // the share of the padded grid that is real output
};

// The 128xW tiles (W from 112 to 256, a multiple of 8), computing C or C^T, whose count fills 90-100%
// of the SMs with the least padding; none where no width does, where rows are not 16-byte aligned or
// off 32-byte sectors, or where an MN-major B tile of that width would get narrower swizzle atoms
// than 128-byte ones. Ties go to computing C.
std::optional<OneWaveTile> oneWaveTileSm90(const MatmulProblem& problem, const DeviceSpec& device);

// Whether cta tiles over `problem` (the kernel's) already fill 90-100% of the SMs once, with at
// least `useful` of their padded grid real output.
bool fillsOneWave(const MatmulProblem& problem, const TileShape& cta, const DeviceSpec& device, double useful);

}  // namespace tilegrid::scheduler
