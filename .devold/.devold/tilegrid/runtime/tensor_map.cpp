#include "tilegrid/runtime/tensor_map.h"

#include <algorithm>
#include <array>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/driver.h"

namespace tilegrid::runtime {
namespace {

int64_t swizzleSpan(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::None: return 0;
    case TmaSwizzle::B32: return 32;
    case TmaSwizzle::B64: return 64;
    case TmaSwizzle::B128: return 128;
  }
  return 0;
}

CUtensorMapDataType dataType(scheduler::DType t) {
  switch (t) {
    case scheduler::DType::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case scheduler::DType::FP16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case scheduler::DType::FP32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    // TMA copies bytes: 8-bit floats travel as unsigned bytes.
    case scheduler::DType::E4M3:
    case scheduler::DType::E5M2: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

}  // namespace

void validateTensorMap(const TensorMapSpec& spec, uint64_t base_address) {
  const size_t rank = spec.dims.size();
  const int64_t elem = scheduler::bytes(spec.dtype);
  TG_USER_CHECK(rank == 2 || rank == 3) << "tensor map: rank must be 2 or 3, got " << rank;
  TG_USER_CHECK(spec.strides_bytes.size() == rank - 1 && spec.box.size() == rank)
      << "tensor map: a rank-" << rank << " map needs " << rank - 1 << " strides and " << rank << " box extents, got "
      << spec.strides_bytes.size() << " and " << spec.box.size();
  TG_USER_CHECK(base_address % 16 == 0) << "tensor map: the global address 0x" << std::hex << base_address << std::dec
                                        << " is not 16-byte aligned";
  for (size_t i = 0; i < rank; ++i) {
    TG_USER_CHECK(spec.dims[i] >= 1 && spec.dims[i] <= (uint64_t{1} << 32))
        << "tensor map: dimension " << i << " is " << spec.dims[i] << "; allowed 1 to 2^32";
    TG_USER_CHECK(spec.box[i] >= 1 && spec.box[i] <= 256)
        << "tensor map: box extent " << i << " is " << spec.box[i] << "; allowed 1 to 256";
  }
  uint64_t previous = spec.dims[0] * static_cast<uint64_t>(elem);
  for (size_t i = 0; i + 1 < rank; ++i) {
    const uint64_t stride = spec.strides_bytes[i];
    TG_USER_CHECK(stride % 16 == 0) << "tensor map: the stride of dimension " << i + 1 << " is " << stride
                                    << " bytes, not a multiple of 16 (a leading dimension of "
                                    << stride / static_cast<uint64_t>(elem) << " " << scheduler::toString(spec.dtype)
                                    << " elements needs a multiple of " << 16 / elem << ")";
    TG_USER_CHECK(stride < (uint64_t{1} << 40)) << "tensor map: the stride of dimension " << i + 1 << " is " << stride
                                                << " bytes; it must be below 2^40";
    TG_USER_CHECK(stride >= previous) << "tensor map: the stride of dimension " << i + 1 << " (" << stride
                                      << " bytes) is smaller than the extent below it (" << previous << " bytes)";
    previous = stride * spec.dims[i + 1];
  }
  const int64_t inner_bytes = static_cast<int64_t>(spec.box[0]) * elem;
  TG_USER_CHECK(inner_bytes % 16 == 0) << "tensor map: the inner box is " << inner_bytes
                                       << " bytes; it must be a multiple of 16";
  const int64_t span = swizzleSpan(spec.swizzle);
  TG_USER_CHECK(span == 0 || inner_bytes <= span)
      << "tensor map: the inner box is " << inner_bytes << " bytes, wider than the " << span
      << "-byte swizzle span; use a narrower box or a 3-D map";
}

CUtensorMap encodeTensorMap(const TensorMapSpec& spec, CUdeviceptr base) {
  validateTensorMap(spec, base);
  currentDevice();
  CUtensorMap map{};
  // Fixed arrays (validateTensorMap allows rank 2 or 3): encoding allocates nothing.
  constexpr size_t kMaxRank = 3;
  std::array<cuuint64_t, kMaxRank> dims{}, strides{};
  std::array<cuuint32_t, kMaxRank> box{}, element_strides{1, 1, 1};
  std::copy(spec.dims.begin(), spec.dims.end(), dims.begin());
  std::copy(spec.strides_bytes.begin(), spec.strides_bytes.end(), strides.begin());
  std::copy(spec.box.begin(), spec.box.end(), box.begin());
  TG_CU(cuTensorMapEncodeTiled, &map, dataType(spec.dtype), static_cast<cuuint32_t>(spec.dims.size()),
        reinterpret_cast<void*>(base), dims.data(), strides.data(), box.data(), element_strides.data(),
        CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(static_cast<int>(spec.swizzle)),
        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        spec.oob_nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return map;
}

}  // namespace tilegrid::runtime
