#pragma once
// TMA tensor maps (cuTensorMapEncodeTiled), with the driver's constraints checked first and any
// violation reported in words.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "scheduler/problem.h"

namespace tilegrid::runtime {

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
};

// Checks `spec` and the base address against the driver's rules; throws UserError saying which rule
// failed. Needs no GPU.
void validateTensorMap(const TensorMapSpec& spec, uint64_t base_address);

// Validates, then encodes through the driver (needs one).
CUtensorMap encodeTensorMap(const TensorMapSpec& spec, CUdeviceptr base);

}  // namespace tilegrid::runtime
