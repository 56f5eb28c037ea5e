#pragma once
// Which kernel family runs a 16-bit problem by default. A device runs its own family (sm_90a's TMA
// and wgmma on Hopper), except for one region where the sm_80 family runs faster there:
//
//   TN problems of a few K tiles and a few output tiles: K of 32 to 256, M and N of 128 to 512,
//   fewer than kSm80FamilyMaxTiles 64x64 output tiles over the batch and fewer than
//   kSm80FamilyMaxSteps 64x64x64 steps of work (tiles times 64-deep K tiles), 16-bit in and out, no
//   fused epilogue, every operand on 16 bytes.
//
// Such a kernel is nearly all start-up and one short main loop. The sm_80 kernel starts sooner
// (several CTAs an SM, cp.async from every warp, no tensor maps or warp specialization) and multiplies
// slower (mma.sync against wgmma), so it wins while the work is a few steps an SM and loses past it;
// the tile and step bounds mark where the measured crossover lies, and the layout and sizes are the
// region where it won at all. The datasets behind the bounds, both families' defaults with cuBLAS in
// turns, and their figures: docs/results/short_k_families_h200.csv,
// short_k_families_tn_rerun_h200.csv, and docs/design.md. Sizes outside the region keep the device's
// family.
#include <cstdint>
#include <string>

#include "tilegrid/scheduler/heuristics.h"

namespace tilegrid::scheduler {

inline constexpr int64_t kSm80FamilyMaxTiles = 512, kSm80FamilyMaxSteps = 1024;

struct FamilyChoice {
  Arch arch = Arch::Sm90;
  std::string rule;  // why, for plan
};

// The family of `overrides.arch`, else the device's own.
FamilyChoice deviceFamily(const DeviceSpec& device, const ScheduleOverrides& overrides);

// deviceFamily, or the sm_80 family on an sm_90 device for the region above where no override
// describes a kernel of its own.
FamilyChoice chooseFamily(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides);

}  // namespace tilegrid::scheduler
