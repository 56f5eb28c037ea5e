#include "tilegrid/ir/half_float.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tilegrid::ir {

uint16_t floatToBf16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float bf16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint16_t floatToHalf(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  const uint32_t sign = (bits >> 16) & 0x8000;
  const int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  if (((bits >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

float halfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t out = 0;
  if (exponent == 0) {
    if (mantissa == 0) {
      out = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400) == 0);
      out = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mantissa & 0x3ff) << 13;
    }
  } else if (exponent == 31) {
    out = sign | 0x7f800000 | mantissa << 13;
  } else {
    out = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float value = 0;
  std::memcpy(&value, &out, 4);
  return value;
}

namespace {

// An 8-bit float: `mantissa` bits below the point, exponents from 1 - bias (subnormals share it)
// up, the largest finite magnitude and the pattern of a NaN.
struct Fp8Format {
  int mantissa, bias;
  double largest;
  uint8_t nan;
};
constexpr Fp8Format kE4m3{3, 7, 448.0, 0x7f};
constexpr Fp8Format kE5m2{2, 15, 57344.0, 0x7f};

uint8_t encodeFp8(float value, const Fp8Format& f) {
  const uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value)) return static_cast<uint8_t>(sign | f.nan);
  const double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude == 0) return sign;
  // The exponent of the value's binade (the subnormals' below the normal range), and the value in
  // units of that binade's last mantissa place, rounded to nearest even (the default mode).
  int binade = 0;
  std::frexp(magnitude, &binade);
  const int exponent = std::max(binade - 1, 1 - f.bias);
  const double place = std::ldexp(1.0, exponent - f.mantissa);
  const double rounded = std::min(std::nearbyint(magnitude / place) * place, f.largest);
  // Back to fields: a rounded value may have reached the next binade.
  std::frexp(rounded, &binade);
  if (rounded == 0) return sign;
  const int e = std::max(binade - 1, 1 - f.bias);
  const bool normal = binade - 1 >= 1 - f.bias;
  const int field = normal ? e + f.bias : 0;
  const auto units = static_cast<int>(rounded / std::ldexp(1.0, e - f.mantissa));
  const int mantissa = normal ? units - (1 << f.mantissa) : units;
  return static_cast<uint8_t>(sign | field << f.mantissa | mantissa);
}

float decodeFp8(uint8_t bits, const Fp8Format& f, bool has_infinity) {
  const double sign = (bits & 0x80) != 0 ? -1.0 : 1.0;
  const int field = (bits & 0x7f) >> f.mantissa, mantissa = bits & ((1 << f.mantissa) - 1);
  const int top = (1 << (7 - f.mantissa)) - 1;
  if (has_infinity && field == top) return mantissa == 0 ? static_cast<float>(sign * HUGE_VAL) : NAN;
  if (!has_infinity && (bits & 0x7f) == f.nan) return NAN;
  const double value = field == 0 ? std::ldexp(mantissa, 1 - f.bias - f.mantissa)
                                  : std::ldexp((1 << f.mantissa) + mantissa, field - f.bias - f.mantissa);
  return static_cast<float>(sign * value);
}

}  // namespace

uint8_t floatToE4m3(float value) { return encodeFp8(value, kE4m3); }
float e4m3ToFloat(uint8_t bits) { return decodeFp8(bits, kE4m3, false); }
uint8_t floatToE5m2(float value) { return encodeFp8(value, kE5m2); }
float e5m2ToFloat(uint8_t bits) { return decodeFp8(bits, kE5m2, true); }

}  // namespace tilegrid::ir
