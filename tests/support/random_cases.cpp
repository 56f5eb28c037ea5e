// Problems drawn at random for the GPU suite (gpu/random_shapes_gpu_test.cpp) and the nvrtc suite,
// which compiles the same draws. Built on mt19937_64's output alone, so a seed names the same
// problems with any standard library.
#include "support/gemm_cases.h"

#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

#include "tilegrid/ir/epilogue.h"

namespace tilegrid::testing {

using scheduler::DType;
using scheduler::Layout;

namespace {

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  int64_t below(uint64_t n) { return static_cast<int64_t>(rng_() % n); }
  bool chance(int percent) { return below(100) < percent; }
  template <typename T, size_t N>
  const T& oneOf(const T (&options)[N]) {
    return options[below(N)];
  }
  // A sixth of the extents under 64, the rest log-uniform over [64, most]; half of all rounded down
  // to a multiple of 8.
  int64_t extent(int64_t most) {
    int64_t e;
    if (chance(16)) {
      e = 1 + below(63);
    } else {
      const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
      e = static_cast<int64_t>(std::exp(std::log(64.0) + u * (std::log(static_cast<double>(most)) - std::log(64.0))));
    }
    return chance(50) ? std::max<int64_t>(8, e / 8 * 8) : e;
  }
  // A third of the problems are sub-matrices of wider buffers: rows padded by up to 70 elements
  // (aligned or not), and batch entries apart by more than one entry's rows.
  scheduler::MatmulProblem maybeStrided(const scheduler::MatmulProblem& p) {
    if (!chance(33)) return p;
    const auto wider = [&](int64_t contiguous) { return contiguous + (chance(50) ? 8 * below(9) : below(71)); };
    const auto apart = [&](int64_t entry) { return p.batch > 1 && chance(50) ? entry + 8 * below(64) + below(2) : 0; };
    const int64_t lda = wider(p.contiguousA()), ldb = wider(p.contiguousB()), ldc = wider(p.n);
    return withStrides(p, lda, ldb, ldc, apart(lda * p.rowsA()), apart(ldb * p.rowsB()), apart(ldc * p.m));
  }

 private:
  std::mt19937_64 rng_;
};

// A random epilogue expression. Terms that grow with acc meet terms of about one (the operands, the
// scalars, constants) in a product at most once each, so outputs stay near acc's size and finite in
// fp16. `approximations` admits tanh and gelu_tanh (tanh.approx, about 2^-11: for 2-byte outputs
// only), `casts` bf16() and fp16() (rounding where the reference's product and ours may differ by
// an ulp: 2-byte outputs only).
class ExpressionDraw {
 public:
  ExpressionDraw(Draw& draw, std::string bias, bool approximations) : d_(draw), bias_(std::move(bias)), approx_(approximations) {}

  std::string growing(int depth) {
    if (depth == 0 || d_.chance(25)) return d_.chance(60) ? "acc" : "alpha * acc";
    switch (d_.below(4)) {
      case 0: {
        static const char* const exact[] = {"relu", "gelu", "silu", "sigmoid"};
        static const char* const approximate[] = {"relu", "gelu", "silu", "sigmoid", "tanh", "gelu_tanh", "bf16", "fp16"};
        return std::string(approx_ ? d_.oneOf(approximate) : d_.oneOf(exact)) + "(" + growing(depth - 1) + ")";
      }
      case 1: {
        static const char* const ops[] = {" + ", " - "};
        return "(" + growing(depth - 1) + d_.oneOf(ops) + growing(depth - 1) + ")";
      }
      case 2: {
        static const char* const ops[] = {"max", "min"};
        return std::string(d_.oneOf(ops)) + "(" + growing(depth - 1) + ", " + bounded() + ")";
      }
      default: {
        static const char* const ops[] = {" * ", " + ", " - "};
        return "(" + growing(depth - 1) + d_.oneOf(ops) + bounded() + ")";
      }
    }
  }

  std::string bounded() {
    const std::string leaves[] = {bias_, "c", "residual", "beta * c", "0.5", "2", "beta", bias_ + " * residual"};
    return d_.oneOf(leaves);
  }

 private:
  Draw& d_;
  std::string bias_;
  bool approx_;
};

// A random epilogue `depth` deep for `p` (an aux output two times in five), and its operands' types.
void drawEpilogue(Draw& d, scheduler::MatmulProblem& p, int depth) {
  const DType operand_types[] = {DType::BF16, DType::FP16, DType::FP32};
  const bool two_byte_out = p.out_dtype != DType::FP32;
  ExpressionDraw expression(d, d.chance(50) ? "bias[m]" : "bias[n]", two_byte_out);
  std::string text = expression.growing(depth);
  if (d.chance(40)) text += "; aux = " + expression.growing(1);
  p.epilogue = ir::Epilogue::parse(text);
  p.bias_dtype = d.oneOf(operand_types);
  p.c_in_dtype = d.oneOf(operand_types);
  p.residual_dtype = d.oneOf(operand_types);
  p.aux_dtype = two_byte_out ? (d.chance(50) ? DType::BF16 : DType::FP16) : DType::FP32;
}

uint64_t environmentNumber(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  if (!value) return fallback;
  char* end = nullptr;
  const uint64_t parsed = std::strtoull(value, &end, 10);
  if (*value < '0' || *value > '9' || *end != '\0') {
    throw std::invalid_argument(std::string(name) + ": expected a whole number, got '" + value + "'");
  }
  return parsed;
}

}  // namespace

RandomDraw randomDrawFromEnvironment(scheduler::Arch arch, int default_count) {
  const uint64_t seed = environmentNumber("TILEGRID_RANDOM_SEED", randomSeed(arch));
  const uint64_t count = environmentNumber("TILEGRID_RANDOM_CASES", static_cast<uint64_t>(default_count));
  if (count < 1 || count > 100000) throw std::invalid_argument("TILEGRID_RANDOM_CASES: expected 1 to 100000");
  return {seed, static_cast<int>(count)};
}

std::vector<GemmCase> randomDefaultCases(scheduler::Arch arch, int count, uint64_t seed) {
  Draw d(seed);
  const Layout layouts[] = {Layout::TN, Layout::NT, Layout::NN, Layout::TT};
  std::vector<GemmCase> cases;
  for (int i = 0; i < count; ++i) {
    const int64_t m = d.extent(6144), n = d.extent(6144), k = d.extent(4096);
    const int64_t batch = d.chance(15) && m * n * k <= (int64_t{1} << 32) ? 2 + d.below(2) : 1;
    const Layout layout = d.oneOf(layouts);
    const DType in = d.chance(50) ? DType::BF16 : DType::FP16;
    const DType out = d.chance(25) ? DType::FP32 : in;
    GemmCase c{d.maybeStrided(makeProblem(m, n, k, layout, in, out, batch)), {}};
    c.overrides.arch = arch;
    cases.push_back(c);
  }
  return cases;
}

std::vector<GemmCase> randomEpilogueCases(scheduler::Arch arch, int count, uint64_t seed) {
  Draw d(seed);
  const Layout layouts[] = {Layout::TN, Layout::NT, Layout::NN, Layout::TT};
  const DType eight_bit[] = {DType::E4M3, DType::E5M2};
  const scheduler::ScaleMode scales[] = {scheduler::ScaleMode::None, scheduler::ScaleMode::Tensor,
                                         scheduler::ScaleMode::Row, scheduler::ScaleMode::Block128};
  std::vector<GemmCase> cases;
  for (int i = 0; i < count; ++i) {
    const int64_t m = d.extent(3072), n = d.extent(3072), k = d.extent(2048);
    const int64_t batch = d.chance(15) ? 2 + d.below(2) : 1;
    // A quarter of the sm_90a problems take 8-bit inputs (K-major, TN), with any scale mode.
    const bool fp8 = arch == scheduler::Arch::Sm90 && d.chance(25);
    const DType in = fp8 ? d.oneOf(eight_bit) : d.chance(50) ? DType::BF16 : DType::FP16;
    const DType out = d.chance(25) ? DType::FP32 : fp8 ? DType::BF16 : in;
    scheduler::MatmulProblem p;
    p.m = m, p.n = n, p.k = k, p.batch = batch;
    p.layout = fp8 ? Layout::TN : d.oneOf(layouts);
    p.a_dtype = in;
    p.b_dtype = fp8 ? d.oneOf(eight_bit) : in;
    p.out_dtype = out;
    if (fp8) p.scale = d.oneOf(scales);
    drawEpilogue(d, p, 3);
    GemmCase c{d.maybeStrided(p.validate()), {}};
    c.overrides.arch = arch;
    cases.push_back(c);
  }
  return cases;
}

std::vector<GemmCase> randomDotCases(scheduler::Arch /*arch: names the seed only*/, int count, uint64_t seed) {
  Draw d(seed);
  const Layout layouts[] = {Layout::TN, Layout::NT, Layout::NN, Layout::TT};
  std::vector<GemmCase> cases;
  for (int i = 0; i < count; ++i) {
    scheduler::MatmulProblem p;
    p.m = 1 + d.below(8), p.n = 1 + d.below(8), p.k = d.extent(300000);
    p.batch = d.chance(20) ? 2 + d.below(4) : 1;
    p.layout = d.oneOf(layouts);
    p.a_dtype = p.b_dtype = d.chance(50) ? DType::BF16 : DType::FP16;
    p.out_dtype = d.chance(25) ? DType::FP32 : p.a_dtype;
    if (d.chance(40)) drawEpilogue(d, p, 2);
    GemmCase c{d.maybeStrided(p.validate()), {}};
    c.overrides.dot = true;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace tilegrid::testing
