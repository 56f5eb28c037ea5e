#pragma once
// TMA tensor maps (cuTensorMapEncodeTiled), with the driver's constraints checked first and any
// violation reported in words.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "tilegrid/codegen/tensor_map_spec.h"

namespace tilegrid::runtime {

using codegen::TensorMapSpec;
using codegen::TmaSwizzle;

// Checks `spec` and the base address against the driver's rules; throws UserError saying which rule
// failed. Needs no GPU.
void validateTensorMap(const TensorMapSpec& spec, uint64_t base_address);

// Validates, then encodes through the driver (needs one).
CUtensorMap encodeTensorMap(const TensorMapSpec& spec, CUdeviceptr base);

}  // namespace tilegrid::runtime
