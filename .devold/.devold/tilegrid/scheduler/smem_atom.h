#pragma once
// Shared-memory layout atoms for operand and epilogue tiles, and the staged tile they build.
//
// An atom is 8 rows of `span` contiguous bytes (16, 32, 64 or 128), swizzled by Swizzle<B,4,3> on
// byte addresses (B = 0, 1, 2, 3): INTER, SW32, SW64, SW128. Rows run along the non-contiguous
// ("row") mode, the span along the major mode: (8 x span) for K-major, (span x 8) for MN-major. The
// atom is chosen by CuTe's sm90 rule (seed 000, get_smem_layout_atom): the widest span that divides
// the major mode's extent in bits. The same atoms make ldmatrix reads and 16-byte cp.async writes
// conflict-free on sm_80 (tilegrid/scheduler/operand_banks.h proves it per tile with the bank model).
#include <array>
#include <cstdint>
#include <string>

#include "tilegrid/ir/tensor_domain.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::scheduler {

enum class AtomKind { INTER, SW32, SW64, SW128 };

const char* toString(AtomKind kind);
AtomKind parseAtomKind(const std::string& text);

struct SmemAtom {
  AtomKind kind = AtomKind::SW128;
  Major major = Major::K;
  DType dtype = DType::BF16;

  int swizzleBits() const { return static_cast<int>(kind); }
  int64_t spanBytes() const { return int64_t{16} << swizzleBits(); }
  // Elements along the major mode: span / element size.
  int64_t contiguousElems() const { return spanBytes() / bytes(dtype); }
  static constexpr int64_t kRows = 8;

  // The hardware pattern, on byte addresses: Swizzle<B, 4, 3>.
  std::array<int, 3> byteSwizzle() const { return {swizzleBits(), 4, 3}; }
  // The same pattern on element offsets: Swizzle<B, 4 - log2(element bytes), 3>.
  std::array<int, 3> elementSwizzle() const;
  // CUtensorMapSwizzle: NONE 0, 32B 1, 64B 2, 128B 3.
  int tmaSwizzle() const { return swizzleBits(); }
  // The wgmma descriptor's layout type (bits 62-63): 0 interleave, 1 = 128B, 2 = 64B, 3 = 32B. The
  // order runs opposite to the TMA enum.
  int wgmmaLayoutType() const;
  // `SW128 K-major: Swizzle<3,4,3> on bytes, (8,64):(64,1) bf16`
  std::string toString() const;
  bool operator==(const SmemAtom&) const = default;
};

// CuTe's rule: SW128 if the major extent's bits are a multiple of 1024, SW64 of 512, SW32 of 256,
// else INTER. The extent must be a multiple of 8 elements (16 bytes for 16-bit types).
SmemAtom chooseSmemAtom(Major major, DType dtype, int64_t major_extent);

// A staged shared-memory tile with logical domain [mn, k, stage]. For the epilogue tile, read
// (m, n) for (mn, k): the atom's "K-major" then means n is contiguous. The allocation domain tiles the atom over the
// tile the way CuTe's tile_to_shape does (repeat along the atom's row mode first, then along its
// major mode, then across stages) and swizzles the linear offset with the atom's element swizzle.
// Extents must be multiples of the atom (8 rows, contiguousElems() along the major mode).
ir::TensorDomain buildSmemTile(const std::string& name, const ir::AxisSpec& mn, const ir::AxisSpec& k, int64_t stages,
                               const SmemAtom& atom);

}  // namespace tilegrid::scheduler
