#include "tilegrid/codegen/kernel_source.h"

#include <fmt/format.h>

#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {

std::string LaunchConfig::toString() const {
  std::string text = fmt::format("grid ({},{},{}) block ({},{},{}) dynamic smem {} bytes", grid[0], grid[1], grid[2],
                                 block[0], block[1], block[2], dynamic_smem_bytes);
  if (cluster != std::array<uint32_t, 3>{1, 1, 1}) text += fmt::format(" cluster ({},{},{})", cluster[0], cluster[1], cluster[2]);
  if (after_prior_grid) text += " overlapping the grid before";
  return text;
}

const char* toString(ArgKind kind) {
  switch (kind) {
    case ArgKind::Pointer: return "pointer";
    case ArgKind::Int32: return "int32";
    case ArgKind::Int64: return "int64";
    case ArgKind::TensorMap: return "tensor map";
    case ArgKind::Problem: return "problem";
  }
  return "?";
}

KernelArg unusedArg(const std::string& name, ArgKind kind) {
  TG_INTERNAL_CHECK(kind == ArgKind::Pointer || kind == ArgKind::TensorMap)
      << "unused kernel argument " << name << " must be a pointer or a tensor map";
  return {name, kind, "", {}, {}};
}

}  // namespace tilegrid::codegen
