// The kernel family a problem runs in by default (kernel_family.h): the device's own, but for TN
// problems of a few K tiles and output tiles on an sm_90 device, which run in the sm_80 family.
#include <gtest/gtest.h>

#include "tilegrid/ir/epilogue.h"
#include "tilegrid/scheduler/kernel_family.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::scheduler {
namespace {

const DeviceSpec kHopper = DeviceSpec::preset("sm_90");

// Unvalidated, so that a test can change it before validate() derives its alignments.
MatmulProblem unvalidated(int64_t m, int64_t n, int64_t k, int64_t batch, Layout layout) {
  MatmulProblem p;
  p.m = m, p.n = n, p.k = k, p.batch = batch, p.layout = layout;
  return p;
}

MatmulProblem problem(int64_t m, int64_t n, int64_t k, int64_t batch, Layout layout) {
  return unvalidated(m, n, k, batch, layout).validate();
}

std::string archRule(const MatmulSchedule& s) {
  for (const Decision& d : s.decisions) {
    if (d.what == "arch") return d.rule;
  }
  return "";
}

// Over a domain straddling every bound (K-major rows on 16 bytes): the sm_80 family exactly where the
// problem is TN, M and N are 128 to 512, K is 32 to 256, the 64x64 output tiles of all batch entries
// number under 512 and their 64x64x64 steps under 1024; the trace names the rule that chose either
// family.
TEST(KernelFamily, TheSm80FamilyExactlyInTheMeasuredRegion) {
  int sm80 = 0;
  for (const Layout layout : {Layout::TN, Layout::NT, Layout::NN, Layout::TT}) {
    for (const int64_t m : {64, 127, 128, 200, 512, 513}) {
      for (const int64_t n : {96, 128, 384, 512, 640}) {
        for (const int64_t k : {16, 24, 32, 96, 256, 264, 1024}) {
          for (const int64_t batch : {1, 2, 8, 31, 32, 64}) {
            const MatmulProblem p = problem(m, n, k, batch, layout);
            const int64_t tiles = (m + 63) / 64 * ((n + 63) / 64) * batch, steps = tiles * ((k + 63) / 64);
            const bool region = layout == Layout::TN && m >= 128 && m <= 512 && n >= 128 && n <= 512 && k >= 32 &&
                                k <= 256 && tiles < kSm80FamilyMaxTiles && steps < kSm80FamilyMaxSteps;
            const MatmulSchedule s = schedule(p, kHopper);
            EXPECT_EQ(s.params.arch, region ? Arch::Sm80 : Arch::Sm90) << p.toString();
            EXPECT_EQ(archRule(s).rfind(region ? "chooseFamily" : "the device's family", 0), 0u)
                << p.toString() << ": " << archRule(s);
            sm80 += region;
          }
        }
      }
    }
  }
  EXPECT_GT(sm80, 50) << "the domain reaches into the region";
}

// Inside the region's sizes, whatever the measurements did not cover keeps the device's family: a
// fused epilogue, an fp32 C, rows off 16 bytes, 8-bit inputs, and overrides that describe a kernel
// (fp16, which runs bf16's instructions, is taken); an sm_80 device runs its own family, and an arch
// given is taken as given.
TEST(KernelFamily, WhatTheRegionDidNotMeasureKeepsTheDevicesFamily) {
  const MatmulProblem inside = problem(256, 256, 64, 8, Layout::TN);
  ASSERT_EQ(schedule(inside, kHopper).params.arch, Arch::Sm80);
  MatmulProblem fused = unvalidated(256, 256, 64, 8, Layout::TN);
  fused.epilogue = ir::Epilogue::parse("relu(acc)");
  EXPECT_EQ(schedule(fused.validate(), kHopper).params.arch, Arch::Sm90);
  MatmulProblem fp32_out = unvalidated(256, 256, 64, 8, Layout::TN);
  fp32_out.out_dtype = DType::FP32;
  EXPECT_EQ(schedule(fp32_out.validate(), kHopper).params.arch, Arch::Sm90);
  EXPECT_EQ(schedule(problem(256, 256, 66, 8, Layout::TN), kHopper).params.arch, Arch::Sm90);
  MatmulProblem padded_rows = unvalidated(256, 256, 64, 8, Layout::TN);
  padded_rows.lda = 68;
  EXPECT_EQ(schedule(padded_rows.validate(), kHopper).params.arch, Arch::Sm90);
  MatmulProblem eight_bit = unvalidated(256, 256, 64, 8, Layout::TN);
  eight_bit.a_dtype = eight_bit.b_dtype = DType::E4M3;
  EXPECT_EQ(schedule(eight_bit.validate(), kHopper).params.arch, Arch::Sm90);
  MatmulProblem half = unvalidated(256, 256, 64, 8, Layout::TN);
  half.a_dtype = half.b_dtype = half.out_dtype = DType::FP16;
  EXPECT_EQ(schedule(half.validate(), kHopper).params.arch, Arch::Sm80) << "fp16 runs the same instructions";
  ScheduleOverrides tile;
  tile.cta_tile = TileShape{128, 128, 64};
  EXPECT_EQ(schedule(inside, kHopper, tile).params.arch, Arch::Sm90);
  ScheduleOverrides given;
  given.arch = Arch::Sm90;
  const MatmulSchedule as_given = schedule(inside, kHopper, given);
  EXPECT_EQ(as_given.params.arch, Arch::Sm90);
  EXPECT_EQ(archRule(as_given), "override");
  EXPECT_EQ(schedule(inside, DeviceSpec::preset("sm_80")).params.arch, Arch::Sm80);
}

}  // namespace
}  // namespace tilegrid::scheduler
