#pragma once
#include <cstdint>
#include <vector>

#include "tilegrid/ir/transform.h"

namespace tilegrid::ir {

// SwizzleMerge(x, y, {f1, f2, ...}): (M, N) -> M*N, a grouped ("megarow") traversal of a 2-D grid
// that launches exactly M*N indices when M is not a multiple of the factor (nvFuser issue #3942).
//
// One factor f, output index i in [0, M*N):
//   megarow        = i / (N*f)
//   megarow_pos    = i - megarow * (N*f)
//   megarow_height = megarow == M / f ? M - (M / f) * f : f     (the last megarow may be short)
//   x = f * megarow + megarow_pos % megarow_height
//   y = megarow_pos / megarow_height
// Inside a megarow x runs fastest, over only as many rows as the megarow has.
//
// A list of factors recurses. Each level sees a sub-grid R x C with a linear index `pos` (level 1:
// R = M along x, C = N along y, pos = i). The level's factor f cuts R into megarows exactly as above,
// which yields an offset f * megarow along R, the megarow's height h and the position mpos inside it.
// The megarow is an h x C grid indexed by mpos. The next level takes that grid with its roles
// swapped (R' = C, C' = h, pos' = mpos), so its factor groups along the other dimension. The last
// level finishes with the one-factor rule: (R coordinate, C coordinate) = (mpos % h, mpos / h).
// {f1, 1} equals {f1}; every list is a bijection onto [0, M) x [0, N).
//
// A factor is a constant or a problem parameter (a size read at launch, at least 1). The GEMM
// kernels compile theirs in (docs/design.md, *Kernels as configurations*, says why).
class SwizzleMerge final : public Transform {
 public:
  SwizzleMerge(const Val& x_extent, const Val& y_extent, std::vector<Val> factors);

  std::string kind() const override { return "SwizzleMerge"; }
  std::string params() const override;
  std::vector<Val> forward(const std::vector<Val>& inputs) const override;
  BackwardResult backward(const std::vector<Val>& outputs) const override;
  std::unique_ptr<Transform> clone() const override { return std::make_unique<SwizzleMerge>(*this); }

  const std::vector<Val>& factors() const { return factors_; }

 private:
  std::vector<Val> factors_;
};

// The largest factor: 2^31 - 1, the most tiles a CUDA grid dimension holds.
inline constexpr int64_t kMaxSwizzleFactor = 2147483647;

// Rejects empty lists and factors below 1 or above kMaxSwizzleFactor, naming the offending entry.
void validateSwizzleFactors(const std::vector<int64_t>& factors);
// Constant factors as the Vals SwizzleMerge takes.
std::vector<Val> constantFactors(const std::vector<int64_t>& factors);

}  // namespace tilegrid::ir
