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

// One class of an operand read in row classes (tilegrid/scheduler/row_classes.h): `operand`
// describes the whole operand at `base` (its row stride need not be 16-byte aligned) with one
// class's box; class `cls` of `classes` holds its rows cls, cls + classes, ... Its map starts at the
// 16-byte boundary at or before the class's first row, `shift` elements before it, and runs
// `classes` rows at a time. Needs no GPU.
struct RowClassMap {
  TensorMapSpec spec;
  uint64_t base = 0;
  int64_t shift = 0;
};
RowClassMap rowClassMap(const TensorMapSpec& operand, int64_t classes, int64_t cls, uint64_t base);

}  // namespace tilegrid::runtime
