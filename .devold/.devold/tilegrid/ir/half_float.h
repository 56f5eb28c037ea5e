#pragma once
// bf16 and fp16 on the host, as raw 16-bit patterns: float to either with round to nearest even (as
// the device's __float2bfloat16_rn and __float2half_rn), and back exactly. The 8-bit floats e4m3 and
// e5m2 likewise, saturating to the largest finite value (as cvt.rn.satfinite does).
#include <cstdint>

namespace tilegrid::ir {

uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint8_t floatToE4m3(float value);
float e4m3ToFloat(uint8_t bits);
uint8_t floatToE5m2(float value);
float e5m2ToFloat(uint8_t bits);

}  // namespace tilegrid::ir
