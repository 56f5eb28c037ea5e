#include "tilegrid/runtime/host_dtype.h"

#include <cmath>
#include <cstring>

#include "tilegrid/ir/check.h"

namespace tilegrid::runtime {

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

std::vector<uint8_t> encode(const std::vector<float>& values, scheduler::DType type) {
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(scheduler::bytes(type)));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == scheduler::DType::FP32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
    } else {
      const uint16_t bits = type == scheduler::DType::BF16 ? floatToBf16(values[i]) : floatToHalf(values[i]);
      std::memcpy(&bytes[i * 2], &bits, 2);
    }
  }
  return bytes;
}

std::vector<float> decode(const std::vector<uint8_t>& bytes, scheduler::DType type) {
  const size_t width = static_cast<size_t>(scheduler::bytes(type));
  TG_USER_CHECK(bytes.size() % width == 0) << "decode: " << bytes.size() << " bytes is not a whole number of "
                                           << scheduler::toString(type) << " elements";
  std::vector<float> values(bytes.size() / width);
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == scheduler::DType::FP32) {
      std::memcpy(&values[i], &bytes[i * 4], 4);
    } else {
      uint16_t bits = 0;
      std::memcpy(&bits, &bytes[i * 2], 2);
      values[i] = type == scheduler::DType::BF16 ? bf16ToFloat(bits) : halfToFloat(bits);
    }
  }
  return values;
}

namespace {

// splitmix64: a good, stateless hash of (seed, index); the device fill uses the same function.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<float> randomValues(size_t count, uint64_t seed, float lo, float hi) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t h = mix(seed * 0x100000001b3ULL + i);
    const float unit = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // 24 bits: exact in float
    values[i] = lo + (hi - lo) * unit;
  }
  return values;
}

}  // namespace tilegrid::runtime
