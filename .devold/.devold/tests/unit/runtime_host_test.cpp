// Runtime pieces that need neither NVRTC nor a GPU: dtype conversions and tensor-map rules.
#include <gtest/gtest.h>

#include <cmath>

#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/host_dtype.h"
#include "measure/matmul_run.h"
#include "tilegrid/runtime/tensor_map.h"

namespace tilegrid::runtime {
namespace {

TEST(HostDtype, EveryBf16AndFp16PatternRoundTrips) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const float bf = bf16ToFloat(b);
    if (!std::isnan(bf)) {
      ASSERT_EQ(floatToBf16(bf), b) << bits;
    }
    const float h = halfToFloat(b);
    if (!std::isnan(h)) {
      ASSERT_EQ(floatToHalf(h), b) << bits;
    }
  }
}

TEST(HostDtype, RoundsToNearestEven) {
  // 1 + 2^-8 lies halfway between bf16 1.0 and 1.0078125: ties go to the even (1.0).
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  EXPECT_EQ(bf16ToFloat(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8))), 1.0f + std::ldexp(1.0f, -6));
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  EXPECT_EQ(halfToFloat(floatToHalf(65520.0f)), INFINITY);  // rounds past the largest half
  EXPECT_EQ(halfToFloat(floatToHalf(std::ldexp(1.0f, -24))), std::ldexp(1.0f, -24));  // smallest subnormal
  const auto values = randomValues(1000, 7, -2.0f, 3.0f);
  for (float v : values) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LT(v, 3.0f);
  }
  EXPECT_NE(values[0], values[1]);
  EXPECT_EQ(values, randomValues(1000, 7, -2.0f, 3.0f));
  const auto decoded = decode(encode(values, scheduler::DType::FP16), scheduler::DType::FP16);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(decoded[i], values[i], 2e-3);
}

TensorMapSpec goodSpec() {
  TensorMapSpec s;
  s.dtype = scheduler::DType::BF16;
  s.dims = {4096, 4096};
  s.strides_bytes = {4096 * 2};
  s.box = {64, 128};
  s.swizzle = TmaSwizzle::B128;
  return s;
}

void expectRejected(const TensorMapSpec& spec, uint64_t base, const std::string& needle) {
  try {
    validateTensorMap(spec, base);
    ADD_FAILURE() << "accepted; expected: " << needle;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// The fp64 host reference, from logical A[b][m][k] and B[b][k][n] stored in each layout: small integers,
// so every sum is exact. More rows than cores, so the threads split them.
TEST(ReferenceGemm, ReadsEveryLayoutAndBatch) {
  scheduler::MatmulProblem p;
  p.m = 67, p.n = 5, p.k = 11, p.batch = 2;
  const auto logical_a = [&](int64_t b, int64_t m, int64_t k) { return static_cast<float>((b * 7 + m * 3 + k) % 9) - 4; };
  const auto logical_b = [&](int64_t b, int64_t k, int64_t n) { return static_cast<float>((b * 5 + k * 2 + n * 3) % 7) - 3; };
  for (scheduler::Layout layout : {scheduler::Layout::TN, scheduler::Layout::NT, scheduler::Layout::NN, scheduler::Layout::TT}) {
    p.layout = layout;
    const bool a_k = scheduler::majorOfA(layout) == scheduler::Major::K;
    const bool b_k = scheduler::majorOfB(layout) == scheduler::Major::K;
    std::vector<float> a(p.batch * p.m * p.k), b(p.batch * p.k * p.n);
    for (int64_t bt = 0; bt < p.batch; ++bt) {
      for (int64_t k = 0; k < p.k; ++k) {
        for (int64_t m = 0; m < p.m; ++m) a[bt * p.m * p.k + (a_k ? m * p.k + k : k * p.m + m)] = logical_a(bt, m, k);
        for (int64_t n = 0; n < p.n; ++n) b[bt * p.n * p.k + (b_k ? n * p.k + k : k * p.n + n)] = logical_b(bt, k, n);
      }
    }
    const std::vector<float> c = referenceGemm(p, a, b);
    ASSERT_EQ(c.size(), static_cast<size_t>(p.batch * p.m * p.n));
    for (int64_t bt = 0; bt < p.batch; ++bt) {
      for (int64_t m = 0; m < p.m; ++m) {
        for (int64_t n = 0; n < p.n; ++n) {
          float want = 0;
          for (int64_t k = 0; k < p.k; ++k) want += logical_a(bt, m, k) * logical_b(bt, k, n);
          ASSERT_EQ(c[(bt * p.m + m) * p.n + n], want) << scheduler::toString(layout) << " " << bt << "," << m << "," << n;
        }
      }
    }
  }
}

TEST(TensorMap, ChecksTheDriversRulesInWords) {
  EXPECT_NO_THROW(validateTensorMap(goodSpec(), 0x10000));
  expectRejected(goodSpec(), 0x10008, "not 16-byte aligned");
  TensorMapSpec s = goodSpec();
  s.dims = {4097, 4097};
  s.strides_bytes = {4097 * 2};  // the 4097 case: leading dimension not a multiple of 8
  expectRejected(s, 0x10000, "not a multiple of 16");
  s = goodSpec();
  s.box = {64, 512};
  expectRejected(s, 0x10000, "allowed 1 to 256");
  s = goodSpec();
  s.box = {128, 64};  // 256 bytes, wider than the 128-byte swizzle
  expectRejected(s, 0x10000, "wider than the 128-byte swizzle span");
  s.swizzle = TmaSwizzle::B64;
  s.box = {64, 64};
  expectRejected(s, 0x10000, "64-byte swizzle span");
  s = goodSpec();
  s.box = {4, 64};
  expectRejected(s, 0x10000, "multiple of 16");
  s = goodSpec();
  s.dims = {64};
  expectRejected(s, 0x10000, "rank must be 2 or 3");
  s = goodSpec();
  s.strides_bytes = {16};
  expectRejected(s, 0x10000, "smaller than the extent below it");
  s = goodSpec();
  s.dims = {64, 64, 4};
  s.strides_bytes = {128, 128 * 64};
  s.box = {64, 64, 1};
  EXPECT_NO_THROW(validateTensorMap(s, 0x10000));
  s.strides_bytes = {128, uint64_t{1} << 41};
  expectRejected(s, 0x10000, "below 2^40");
}

}  // namespace
}  // namespace tilegrid::runtime
