#pragma once
// Formulas transcribed directly from the seed texts, as independent references for tests.
#include <cstdint>
#include <utility>

namespace tilegrid::testing {

// nvFuser issue #3942: the SwizzleMerge megarow mapping of linear index i to (p, q).
inline std::pair<int64_t, int64_t> swizzleMergeSeed(int64_t i, int64_t M, int64_t N, int64_t factor) {
  const int64_t megarow = i / (N * factor);
  const int64_t megarow_pos = i - megarow * (N * factor);
  const int64_t megarow_height = (megarow == M / factor) ? (M - (M / factor) * factor) : factor;
  return {factor * megarow + megarow_pos % megarow_height, megarow_pos / megarow_height};
}

}  // namespace tilegrid::testing
