#pragma once
// GEMM configurations shared by the nvrtc (compile every variant) and gpu (run them) suites.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::testing {

struct GemmCase {
  scheduler::MatmulProblem problem;
  scheduler::ScheduleOverrides overrides;
  std::string label() const;
};

// gtest prints parameters with this instead of their bytes.
inline void PrintTo(const GemmCase& c, std::ostream* os) { *os << c.label(); }

// Validated; `align` (elements, all three operands) 0 derives the alignments, and with them lets
// one-row operands be read K-major (MatmulProblem::validate); a given one keeps the layout.
scheduler::MatmulProblem makeProblem(int64_t m, int64_t n, int64_t k, scheduler::Layout layout, scheduler::DType in,
                                     scheduler::DType out, int64_t batch = 1, int64_t align = 0);

// `p` with these leading dimensions and batch strides (0: packed), its alignments derived again.
scheduler::MatmulProblem withStrides(scheduler::MatmulProblem p, int64_t lda, int64_t ldb, int64_t ldc, int64_t stride_a,
                                     int64_t stride_b, int64_t stride_c);

// Layouts x dtypes x grid methods x tile configs x aligned and misaligned shapes.
std::vector<GemmCase> sm80CompileCases();
// A smaller set with edge tiles, K tails, misaligned operands and batches, small enough for an fp64
// CPU reference.
std::vector<GemmCase> sm80RunCases();
// The shapes issue #5 names, every layout, default schedules, bf16: checked against cuBLAS.
std::vector<GemmCase> sm80CublasCases();

// Every compile variant on small odd shapes, for compute-sanitizer runs.
std::vector<GemmCase> sm80SmallVariants();
std::vector<GemmCase> sm90SmallVariants();

// The sm_90a family: layouts x dtypes x grid methods x tiles x aligned and misaligned shapes.
std::vector<GemmCase> sm90CompileCases();
// Edge tiles, K tails, misaligned operands (padded copies), batches and dtypes, fp64-checkable.
std::vector<GemmCase> sm90RunCases();
// The shapes issue #6 names, every layout, default schedules, bf16: checked against cuBLAS.
std::vector<GemmCase> sm90CublasCases();
// Problems whose last wave stream-K cuts two and three ways on an H100: K tails, misaligned C (direct
// stores), padded operands, batches, fp32 out, clusters of 1, 2 and 4. Checked against cuBLAS.
std::vector<GemmCase> sm90StreamKCases();
// Ping-pong kernels (two warpgroups taking whole tiles in turns) on problems of several units a CTA:
// every layout, edge tiles, K tails, a batch, C^T, padded operands, fused epilogues. Against cuBLAS.
std::vector<GemmCase> sm90PingPongCases();
// 8-bit inputs (e4m3, e5m2, mixed), default schedules: scales, K tails, padded rows, decode,
// batches, output types, fused epilogues, ping-pong. Against cuBLAS's bf16 product of exact copies,
// and cuBLASLt's FP8 GEMM where it computes the same.
std::vector<GemmCase> sm90Fp8Cases();

// Problems of at most 8x8 outputs of 16-bit inputs, run as dot kernels (asked for): every
// layout, sizes that fill its sums and that leave most empty, K of one element, K tails inside a
// vector and past the last whole step, one chunk and many, a batch, leading dimensions off 16 bytes
// (narrower reads), fp16 and fp32 out, C^T, epilogues with a bias along m or n, c, and an aux
// output.
std::vector<GemmCase> dotCases();

// `count` problems drawn from `seed`, each left to the default schedule of the arch family, so that
// the heuristics meet sizes no list above names: M and N up to 6144, K up to 4096 (a sixth of the
// extents under 64, half of all a multiple of 8), any layout, bf16 or fp16 in, the same or fp32
// out, now and then a batch of 2 or 3. Built on mt19937_64's output alone, so a seed names the same
// problems with any standard library. Checked against cuBLAS, which takes these dtype pairs.
std::vector<GemmCase> randomDefaultCases(scheduler::Arch arch, int count, uint64_t seed);
// `count` problems with random fused epilogues (support/random_cases.cpp): expressions three deep over
// acc, alpha, beta, a bias along m or n, c and a residual, an aux output now and then, each operand
// of any type; M and N up to 3072, K up to 2048, any layout, strided and batched now and then; on
// sm_90a a quarter with 8-bit inputs and any scale mode. Default schedules, checked against cuBLAS's
// product with the epilogue applied on the host.
std::vector<GemmCase> randomEpilogueCases(scheduler::Arch arch, int count, uint64_t seed);
// `count` problems of at most 8x8 outputs run as dot kernels (asked for): K from 1 to 300000, any
// layout, batches, sub-matrices of wider buffers, and two in five with a random fused epilogue.
// `arch` names the seed only: dot kernels run on any device.
std::vector<GemmCase> randomDotCases(scheduler::Arch arch, int count, uint64_t seed);
// Fused epilogues (ir/epilogue.h), each kind on several shapes that reach the kernels' different
// stores: C by TMA and by the threads, stored transposed (decode), stream-K pieces added before the
// epilogue, batches, fp32 operands and output. Default schedules for the arch family.
std::vector<GemmCase> epilogueCases(scheduler::Arch arch);
// The epilogue texts cuBLASLt's fused menu computes (runtime::CublasLtGemm::epilogueFor).
std::vector<std::string> cublasLtEpilogueTexts();

// What the gpu suite runs and the nvrtc suite compiles unless told otherwise.
constexpr int kRandomCases = 32;
constexpr int kRandomEpilogueCases = 16;
constexpr int kRandomDotCases = 32;
constexpr uint64_t randomSeed(scheduler::Arch arch) { return arch == scheduler::Arch::Sm80 ? 80 : 90; }
// The seed and count of a random draw: TILEGRID_RANDOM_SEED and TILEGRID_RANDOM_CASES where set
// (whole numbers; 1 to 100000 cases), else randomSeed(arch) and `default_count`.
struct RandomDraw {
  uint64_t seed;
  int count;
};
RandomDraw randomDrawFromEnvironment(scheduler::Arch arch, int default_count);

}  // namespace tilegrid::testing
