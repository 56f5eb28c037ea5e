#include "tilegrid/scheduler/smem_atom.h"

#include <fmt/format.h>

#include "tilegrid/ir/enum_names.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::scheduler {

const char* toString(AtomKind kind) {
  switch (kind) {
    case AtomKind::INTER: return "INTER";
    case AtomKind::SW32: return "SW32";
    case AtomKind::SW64: return "SW64";
    case AtomKind::SW128: return "SW128";
  }
  return "?";
}

AtomKind parseAtomKind(const std::string& text) {
  return parseEnum(text, {AtomKind::INTER, AtomKind::SW32, AtomKind::SW64, AtomKind::SW128},
                   [](AtomKind k) { return toString(k); }, "smem atom");
}

std::array<int, 3> SmemAtom::elementSwizzle() const {
  int log2_bytes = 0;
  while ((int64_t{1} << log2_bytes) < bytes(dtype)) ++log2_bytes;
  return {swizzleBits(), 4 - log2_bytes, 3};
}

int SmemAtom::wgmmaLayoutType() const {
  switch (kind) {
    case AtomKind::INTER: return 0;
    case AtomKind::SW128: return 1;
    case AtomKind::SW64: return 2;
    case AtomKind::SW32: return 3;
  }
  return 0;
}

std::string SmemAtom::toString() const {
  const auto [b, m, s] = byteSwizzle();
  const int64_t w = contiguousElems();
  const std::string shape = major == Major::K ? fmt::format("(8,{}):({},1)", w, w) : fmt::format("({},8):(1,{})", w, w);
  return fmt::format("{} {}-major: Swizzle<{},{},{}> on bytes, {} {}", scheduler::toString(kind),
                     scheduler::toString(major), b, m, s, shape, scheduler::toString(dtype));
}

SmemAtom chooseSmemAtom(Major major, DType dtype, int64_t major_extent) {
  TG_USER_CHECK(major_extent >= 1 && major_extent % 8 == 0)
      << "a shared-memory tile's major mode must be a multiple of 8 elements, got " << major_extent;
  const int64_t bits = major_extent * bytes(dtype) * 8;
  AtomKind kind = AtomKind::INTER;
  if (bits % 1024 == 0) {
    kind = AtomKind::SW128;
  } else if (bits % 512 == 0) {
    kind = AtomKind::SW64;
  } else if (bits % 256 == 0) {
    kind = AtomKind::SW32;
  }
  return SmemAtom{kind, major, dtype};
}

ir::TensorDomain buildSmemTile(const std::string& name, const ir::AxisSpec& mn, const ir::AxisSpec& k, int64_t stages,
                               const SmemAtom& atom) {
  const auto mn_value = mn.extent.constValue();
  const auto k_value = k.extent.constValue();
  TG_USER_CHECK(mn_value && k_value) << name << ": a shared-memory tile needs constant extents";
  const int64_t mn_extent = *mn_value;
  const int64_t k_extent = *k_value;
  TG_USER_CHECK(stages >= 1) << name << ": a staged tile needs at least one stage, got " << stages;
  const int64_t width = atom.contiguousElems();
  // K-major: rows run along MN and the span along K. MN-major: the other way round.
  const bool k_major = atom.major == Major::K;
  const int64_t row_extent = k_major ? mn_extent : k_extent;
  const int64_t major_extent = k_major ? k_extent : mn_extent;
  TG_USER_CHECK(row_extent % SmemAtom::kRows == 0 && major_extent % width == 0)
      << name << ": a " << mn_extent << " x " << k_extent << " tile is not a whole number of " << atom.toString()
      << " atoms (needs " << SmemAtom::kRows << " | " << (k_major ? mn.name : k.name) << " and " << width << " | "
      << (k_major ? k.name : mn.name) << ")";
  ir::TensorDomain tile(name, {mn, k, {"stage", ir::Val(stages)}});
  const int row_axis = k_major ? 0 : 1;
  const int major_axis = 1 - row_axis;
  // [mn, k, stage] -> [row_o, row_i, major_o, major_i, stage] in the loop order we then reorder.
  tile.reorder({{row_axis, 0}, {major_axis, 1}});  // [row, major, stage]
  tile.split(0, ir::Val(SmemAtom::kRows));         // [row_o, row_i, major, stage]
  tile.split(2, ir::Val(width));                   // [row_o, row_i, major_o, major_i, stage]
  // tile_to_shape order: stage slowest, then major_o, then row_o, then the atom (row_i, major_i).
  tile.reorder({{4, 0}, {2, 1}, {0, 2}, {1, 3}, {3, 4}});
  // Swizzle one stage's offsets and only then add the stage: the same layout (the pattern repeats
  // within every stage), but the printed offset becomes `stage * size + f(row, col)`, so kernels
  // compute f once and step through the stage ring with an add.
  tile.merge(1).merge(1).merge(1);
  const auto [b, m, s] = atom.elementSwizzle();
  if (b > 0) tile.swizzle(1, b, m, s);
  tile.merge(0);
  tile.setAllocationDomain(tile.loop());
  tile.setLoopDomain(tile.logical());
  return tile;
}

}  // namespace tilegrid::scheduler
