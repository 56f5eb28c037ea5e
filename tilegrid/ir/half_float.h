#pragma once
// bf16 and fp16 on the host, as raw 16-bit patterns: float to either with round to nearest even (as
// the device's __float2bfloat16_rn and __float2half_rn), and back exactly.
#include <cstdint>

namespace tilegrid::ir {

uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);

}  // namespace tilegrid::ir
