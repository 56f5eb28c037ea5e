#pragma once
// What a TMA tensor map describes, as plain data: the code generator says which maps a kernel
// takes, the runtime encodes them (tilegrid/runtime/tensor_map.h) over the buffers it launches with.
#include <cstdint>
#include <vector>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::codegen {

// CUtensorMapSwizzle's values.
enum class TmaSwizzle { None = 0, B32 = 1, B64 = 2, B128 = 3 };

struct TensorMapSpec {
  scheduler::DType dtype = scheduler::DType::BF16;
  // Innermost (contiguous) dimension first; rank 2 or 3.
  std::vector<uint64_t> dims;
  // Byte strides of dims[1..]: rank - 1 entries.
  std::vector<uint64_t> strides_bytes;
  // The box one TMA copy moves, per dimension.
  std::vector<uint32_t> box;
  TmaSwizzle swizzle = TmaSwizzle::None;
  // Out-of-bounds elements read as zero, or as NaN when set.
  bool oob_nan = false;
  bool operator==(const TensorMapSpec&) const = default;
};

}  // namespace tilegrid::codegen
