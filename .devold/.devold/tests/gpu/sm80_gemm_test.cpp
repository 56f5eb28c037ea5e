// Generated sm_80 GEMMs on the GPU against an fp64 CPU reference, on random data, for every layout,
// dtype pair and grid method, with edge tiles, K tails, misaligned operands and batches.
#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

class Sm80Gemm : public ::testing::TestWithParam<GemmCase> {};
TEST_P(Sm80Gemm, MatchesFp64Reference) { expectCorrect(GetParam(), runtime::Reference::CpuFp64); }

class Sm80VsCublas : public ::testing::TestWithParam<GemmCase> {};
TEST_P(Sm80VsCublas, MatchesCublas) { expectCorrect(GetParam(), runtime::Reference::Cublas); }

INSTANTIATE_TEST_SUITE_P(Cases, Sm80Gemm, ::testing::ValuesIn(sm80RunCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Shapes, Sm80VsCublas, ::testing::ValuesIn(sm80CublasCases()), caseName);

}  // namespace
}  // namespace tilegrid::testing
