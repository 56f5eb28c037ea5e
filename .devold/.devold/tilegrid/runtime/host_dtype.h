#pragma once
// bf16, fp16, e4m3 and e5m2 conversions on the host (round to nearest even; 8-bit floats saturate),
// for filling and checking buffers without device headers.
#include <cstdint>
#include <vector>

#include "tilegrid/ir/half_float.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

using ir::bf16ToFloat;
using ir::floatToBf16;
using ir::floatToHalf;
using ir::halfToFloat;

// `values` encoded as `type`, as raw bytes.
std::vector<uint8_t> encode(const std::vector<float>& values, scheduler::DType type);
// Raw bytes of `count` elements of `type`, decoded to float.
std::vector<float> decode(const std::vector<uint8_t>& bytes, scheduler::DType type);

// Deterministic uniform values in [lo, hi), the same sequence the device fill produces.
std::vector<float> randomValues(size_t count, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace tilegrid::runtime
