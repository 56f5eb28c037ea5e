#include "tilegrid/runtime/host_dtype.h"

#include <cmath>
#include <cstring>

#include "tilegrid/ir/check.h"

namespace tilegrid::runtime {

std::vector<uint8_t> encode(const std::vector<float>& values, scheduler::DType type) {
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(scheduler::bytes(type)));
  for (size_t i = 0; i < values.size(); ++i) {
    if (type == scheduler::DType::FP32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
    } else if (type == scheduler::DType::E4M3) {
      bytes[i] = ir::floatToE4m3(values[i]);
    } else if (type == scheduler::DType::E5M2) {
      bytes[i] = ir::floatToE5m2(values[i]);
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
    } else if (type == scheduler::DType::E4M3) {
      values[i] = ir::e4m3ToFloat(bytes[i]);
    } else if (type == scheduler::DType::E5M2) {
      values[i] = ir::e5m2ToFloat(bytes[i]);
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
