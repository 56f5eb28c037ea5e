#include "tilegrid/scheduler/kernel_family.h"

#include <fmt/format.h>

#include "tilegrid/scheduler/operand_padding.h"

namespace tilegrid::scheduler {
namespace {

bool sixteenBit(DType t) { return t == DType::BF16 || t == DType::FP16; }

// The measured region of kernel_family.h.
bool fewKTilesTn(const MatmulProblem& p) {
  constexpr int64_t kSmallestSide = 128, kLargestSide = 512, kShallowestK = 32, kDeepestK = 256, kTile = 64;
  if (p.layout != Layout::TN || !sixteenBit(p.a_dtype) || p.b_dtype != p.a_dtype || p.out_dtype != p.a_dtype) return false;
  if (!p.epilogue.isIdentity() || p.scale != ScaleMode::None) return false;
  if (operandMisaligned(p, 'a') || operandMisaligned(p, 'b') || !p.rowsOfCAreWhole16Bytes()) return false;
  if (p.m < kSmallestSide || p.m > kLargestSide || p.n < kSmallestSide || p.n > kLargestSide) return false;
  if (p.k < kShallowestK || p.k > kDeepestK) return false;
  const int64_t tiles = ceilDiv(p.m, kTile) * ceilDiv(p.n, kTile) * p.batch;
  const int64_t steps = tiles * ceilDiv(p.k, kTile);
  return tiles < kSm80FamilyMaxTiles && steps < kSm80FamilyMaxSteps;
}

}  // namespace

FamilyChoice deviceFamily(const DeviceSpec& device, const ScheduleOverrides& overrides) {
  if (overrides.arch) return {*overrides.arch, "override"};
  return {device.arch(), "the device's family (" + device.name + ")"};
}

FamilyChoice chooseFamily(const MatmulProblem& problem, const DeviceSpec& device, const ScheduleOverrides& overrides) {
  const FamilyChoice own = deviceFamily(device, overrides);
  const bool kernel_described = overrides.describesTiledKernel() || overrides.swap_ab || overrides.pad || overrides.dot;
  if (own.arch != Arch::Sm90 || kernel_described || !fewKTilesTn(problem)) return own;
  return {Arch::Sm80,
          fmt::format("chooseFamily: a TN problem of K 32 to 256, M and N 128 to 512, under {} 64x64 tiles and {} "
                      "64x64x64 steps runs faster in the sm_80 family on {}",
                      kSm80FamilyMaxTiles, kSm80FamilyMaxSteps, device.name)};
}

}  // namespace tilegrid::scheduler
