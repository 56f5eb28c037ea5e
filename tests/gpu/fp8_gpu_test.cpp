// 8-bit inputs on the GPU: every case of sm90Fp8Cases against cuBLAS's bf16 product of exact copies
// of the inputs (scales and epilogue applied on the host in fp64), and cuBLASLt's FP8 GEMM against
// the same reference where it computes the same (its scale modes, its epilogue menu); small odd
// problems against an fp64 host reference from the decoded inputs.
#include <gtest/gtest.h>

#include "support/gpu_gemm_check.h"
#include "tilegrid/ir/epilogue.h"

namespace tilegrid::testing {
namespace {

class Sm90Fp8 : public ::testing::TestWithParam<GemmCase> {};

TEST_P(Sm90Fp8, MatchesTheExactProductAndCublasLt) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "8-bit inputs")) GTEST_SKIP() << *why;
  const GemmCase& c = GetParam();
  const auto schedule = scheduler::schedule(c.problem, device, c.overrides);
  const auto source = codegen::emit(schedule);
  runtime::RunOptions options;
  options.iterations = 0;
  const runtime::RunResult result = runtime::runMatmul(schedule, source, options);
  ASSERT_TRUE(result.errors.has_value());
  const runtime::ErrorStats& e = *result.errors;
  EXPECT_TRUE(e.passed) << c.label() << " (" << source.kernel_name << "): norm rel " << e.norm_rel << ", max rel "
                        << e.max_rel << ", non-finite " << e.non_finite << ", gap writes " << e.gap_writes
                        << " (tolerance " << e.tolerance << ")";
  if (result.cublaslt_errors) {
    EXPECT_TRUE(result.cublaslt_errors->passed)
        << "cuBLASLt " << result.cublaslt_epilogue.value_or("?") << " on " << c.label() << ": norm rel "
        << result.cublaslt_errors->norm_rel << " (the reference or the scales' meaning disagree)";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Sm90Fp8, ::testing::ValuesIn(sm90Fp8Cases()), caseName);

// Odd sizes everywhere (edge tiles, a K tail of 45 elements read through padded copies, a batch),
// row, tensor and block scales, against fp64 on the host from the decoded inputs.
TEST(Sm90Fp8Small, MatchesFp64Reference) {
  std::vector<GemmCase> cases;
  for (const auto& [a, b, scale] : {std::tuple{scheduler::DType::E4M3, scheduler::DType::E4M3, scheduler::ScaleMode::Row},
                                    std::tuple{scheduler::DType::E5M2, scheduler::DType::E4M3, scheduler::ScaleMode::Tensor},
                                    std::tuple{scheduler::DType::E4M3, scheduler::DType::E4M3, scheduler::ScaleMode::Block128}}) {
    scheduler::MatmulProblem p;
    p.m = 257, p.n = 131, p.k = 301, p.batch = 2;
    p.a_dtype = a, p.b_dtype = b, p.out_dtype = scheduler::DType::FP32, p.scale = scale;
    GemmCase c{p.validate(), {}};
    c.overrides.arch = scheduler::Arch::Sm90;
    cases.push_back(c);
  }
  expectAllCorrect(cases, runtime::Reference::CpuFp64);
}

// An fp32 auxiliary output comes from the same 8-bit accumulator as C, whose additions keep about
// 14 mantissa bits: it is held to the bound C is held to, not to fp32's rounding (K = 2048 puts
// the accumulator's error past the latter).
TEST(Sm90Fp8Small, AnAuxOutputIsHeldToTheAccumulatorsPrecision) {
  scheduler::MatmulProblem p;
  p.m = 392, p.n = 376, p.k = 2048;
  p.a_dtype = scheduler::DType::E5M2, p.b_dtype = scheduler::DType::E4M3;
  p.out_dtype = scheduler::DType::FP32, p.scale = scheduler::ScaleMode::Tensor;
  p.epilogue = ir::Epilogue::parse("relu(acc * scale_a * scale_b + 2); aux = acc * scale_a * scale_b * 2");
  GemmCase c{p.validate(), {}};
  c.overrides.arch = scheduler::Arch::Sm90;
  expectCorrect(c, runtime::Reference::Cublas);
}

}  // namespace
}  // namespace tilegrid::testing
