// Generated sm_90a GEMMs (TMA + wgmma, persistent, warp-specialized) on the GPU: against an fp64 CPU
// reference for edge tiles, K tails, misaligned operands, batches, dtypes and grid methods, and
// against cuBLAS for the shapes issue #6 names, every layout.
#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

class Sm90Gemm : public ::testing::TestWithParam<GemmCase> {};
TEST_P(Sm90Gemm, MatchesFp64Reference) { expectCorrect(GetParam(), runtime::Reference::CpuFp64); }

class Sm90VsCublas : public ::testing::TestWithParam<GemmCase> {};
TEST_P(Sm90VsCublas, MatchesCublas) { expectCorrect(GetParam(), runtime::Reference::Cublas); }

INSTANTIATE_TEST_SUITE_P(Cases, Sm90Gemm, ::testing::ValuesIn(sm90RunCases()), caseName);
INSTANTIATE_TEST_SUITE_P(Shapes, Sm90VsCublas, ::testing::ValuesIn(sm90CublasCases()), caseName);

}  // namespace
}  // namespace tilegrid::testing
