// The kernels' wgmma descriptor helpers (tilegrid/codegen/device/wgmma_desc.cuh), run here on the CPU.
// Kernels step a tile's first descriptor by a 32-bit add on its low word: for every 16-byte aligned
// shared-memory address a CTA may have and every step that stays inside it, the stepped descriptor
// must be the descriptor of the stepped address, with the offsets and layout untouched.
#include <gtest/gtest.h>

#include <cstdint>

#include "tilegrid/codegen/device/wgmma_desc.cuh"

namespace {

// Shared memory a Hopper CTA may address, in 16-byte units (the descriptor's address unit).
constexpr unsigned kSmemUnits = 232448 / 16;

struct DescriptorFields {
  unsigned lbo, sbo, layout;
};

TEST(WgmmaDesc, FieldsLandWhereTheHardwareReadsThem) {
  const unsigned long long d = tg_wgmma_desc(0x1230, 16, 1024, 1);
  EXPECT_EQ(d & 0x3FFF, 0x123u);
  EXPECT_EQ((d >> 16) & 0x3FFF, 1u);
  EXPECT_EQ((d >> 32) & 0x3FFF, 64u);
  EXPECT_EQ(d >> 62, 1u);
}

TEST(WgmmaDesc, AdvancingIsTheDescriptorOfTheAdvancedAddress) {
  // Every step below 64 units and every multiple of 64 (stages and K steps are such), from every
  // start address.
  for (const DescriptorFields f : {DescriptorFields{16, 1024, 1}, DescriptorFields{0, 512, 2},
                                   DescriptorFields{0x3FFF0, 0x3FFF0, 3}}) {
    int64_t mismatches = 0;
    for (unsigned start = 0; start < kSmemUnits; ++start) {
      const unsigned long long first = tg_wgmma_desc(16 * start, f.lbo, f.sbo, f.layout);
      for (unsigned step = 0; start + step < kSmemUnits; step += step < 64 ? 1 : 64) {
        const unsigned long long want = tg_wgmma_desc(16 * (start + step), f.lbo, f.sbo, f.layout);
        mismatches += tg_wgmma_desc_advance(first, step) != want;
      }
    }
    EXPECT_EQ(mismatches, 0) << "layout " << f.layout;
  }
}

}  // namespace
