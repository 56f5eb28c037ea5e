#include "scheduler/problem.h"

#include <fmt/format.h>

#include <optional>

#include "ir/enum_names.h"
#include "ir/error.h"

namespace tilegrid::scheduler {

int64_t bytes(DType type) { return type == DType::FP32 ? 4 : 2; }

const char* toString(DType type) {
  switch (type) {
    case DType::BF16: return "bf16";
    case DType::FP16: return "fp16";
    case DType::FP32: return "fp32";
  }
  return "?";
}

DType parseDType(const std::string& text) {
  return parseEnum(text, {DType::BF16, DType::FP16, DType::FP32}, [](DType t) { return toString(t); }, "dtype");
}

DType parseInputDType(const std::string& text) {
  for (DType t : {DType::BF16, DType::FP16}) {
    if (text == toString(t)) return t;
  }
  TG_USER_ERROR() << "A and B must be bf16 or fp16 (tensor-core inputs), got '" << text << "'";
  return DType::BF16;
}

const char* toString(Major major) { return major == Major::K ? "K" : "MN"; }

const char* toString(Layout layout) {
  switch (layout) {
    case Layout::TN: return "TN";
    case Layout::NT: return "NT";
    case Layout::NN: return "NN";
    case Layout::TT: return "TT";
  }
  return "?";
}

Layout parseLayout(const std::string& text) {
  return parseEnum(text, {Layout::TN, Layout::NT, Layout::NN, Layout::TT}, [](Layout l) { return toString(l); },
                   "layout");
}

Major majorOfA(Layout layout) { return (layout == Layout::TN || layout == Layout::TT) ? Major::K : Major::MN; }
Major majorOfB(Layout layout) { return (layout == Layout::TN || layout == Layout::NN) ? Major::K : Major::MN; }

int64_t largestPow2Divisor(int64_t value, int64_t cap) {
  int64_t p = 1;
  while (p < cap && value % (p * 2) == 0) p *= 2;
  return p;
}

namespace {

// a * b, or nothing if it overflows int64.
std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
  return result;
}

void checkBytesFit(const char* what, int64_t rows, int64_t cols, int64_t batch, DType type) {
  std::optional<int64_t> total = checkedMul(rows, cols);
  if (total) total = checkedMul(*total, batch);
  if (total) total = checkedMul(*total, bytes(type));
  TG_USER_CHECK(total.has_value()) << what << " (" << rows << " x " << cols << " x batch " << batch << " "
                                   << toString(type) << ") has more bytes than a 64-bit offset can address";
}

void checkAlignment(int64_t& align, int64_t leading_dim, DType type, const char* operand) {
  const int64_t max_align = 16 / bytes(type);  // 16-byte vectors are the widest access
  if (align == 0) {
    align = largestPow2Divisor(leading_dim, max_align);
    return;
  }
  TG_USER_CHECK(align >= 1 && (align & (align - 1)) == 0 && align <= max_align)
      << "alignment of " << operand << " is " << align << " elements: it must be a power of two from 1 to "
      << max_align << " for " << toString(type);
  TG_USER_CHECK(leading_dim % align == 0) << "alignment of " << operand << " is " << align
                                          << " elements, but its leading dimension " << leading_dim
                                          << " is not a multiple of it";
}

}  // namespace

MatmulProblem& MatmulProblem::validate() {
  TG_USER_CHECK(m >= 1 && n >= 1 && k >= 1) << "M, N and K must be >= 1, got M=" << m << " N=" << n << " K=" << k;
  TG_USER_CHECK(batch >= 1) << "batch must be >= 1, got " << batch;
  TG_USER_CHECK(a_dtype != DType::FP32 && b_dtype != DType::FP32)
      << "A and B must be bf16 or fp16 (tensor-core inputs), got " << scheduler::toString(a_dtype) << " and "
      << scheduler::toString(b_dtype);
  TG_USER_CHECK(a_dtype == b_dtype) << "A and B must have the same dtype, got " << scheduler::toString(a_dtype) << " and "
                                    << scheduler::toString(b_dtype);
  checkBytesFit("A", m, k, batch, a_dtype);
  checkBytesFit("B", k, n, batch, b_dtype);
  checkBytesFit("C", m, n, batch, out_dtype);
  checkAlignment(align_a, leadingDimA(), a_dtype, "A");
  checkAlignment(align_b, leadingDimB(), b_dtype, "B");
  checkAlignment(align_c, leadingDimC(), out_dtype, "C");
  return *this;
}

std::string MatmulProblem::toString() const {
  std::string text = fmt::format("{}x{}x{}", m, n, k);
  if (batch != 1) text += fmt::format(" batch {}", batch);
  return text + fmt::format(" {} {}->{} (align A/B/C {}/{}/{})", scheduler::toString(layout),
                            scheduler::toString(a_dtype), scheduler::toString(out_dtype), align_a, align_b, align_c);
}

MatmulProblem swapOperands(const MatmulProblem& problem) {
  MatmulProblem swapped = problem;
  swapped.m = problem.n;
  swapped.n = problem.m;
  swapped.a_dtype = problem.b_dtype;
  swapped.b_dtype = problem.a_dtype;
  swapped.align_a = problem.align_b;
  swapped.align_b = problem.align_a;
  // A K-major B (BLAS letter N) is a K-major new A (T); an M-major A (N) is a new B contiguous along
  // the new N (T).
  static constexpr Layout kSwapped[] = {Layout::TN, Layout::NT, Layout::TT, Layout::NN};
  swapped.layout = kSwapped[static_cast<int>(problem.layout)];
  return swapped;
}

const char* toString(Arch arch) { return arch == Arch::Sm80 ? "sm_80" : "sm_90"; }

Arch parseArch(const std::string& text) {
  if (text == "sm_80" || text == "sm80") return Arch::Sm80;
  if (text == "sm_90" || text == "sm_90a" || text == "sm90") return Arch::Sm90;
  TG_USER_ERROR() << "unknown arch '" << text << "': expected sm_80 or sm_90";
  return Arch::Sm80;
}

Arch DeviceSpec::arch() const { return cc_major == 9 ? Arch::Sm90 : Arch::Sm80; }

void DeviceSpec::validate() const {
  TG_USER_CHECK(cc_major >= 8) << "device '" << name << "' has compute capability " << cc_major << "." << cc_minor
                               << ": tilegrid needs sm_80 or newer (mma.sync m16n8k16, cp.async)";
  TG_USER_CHECK(sm_count >= 1 && smem_per_block >= 48 * 1024 && l2_bytes >= 1)
      << "device '" << name << "' has implausible figures: " << toString();
}

std::string DeviceSpec::toString() const {
  return fmt::format("{} (sm_{}{}, {} SMs, {} KiB smem per block, {} MB L2)", name, cc_major, cc_minor, sm_count,
                     smem_per_block / 1024, l2_bytes / (1024 * 1024));
}

DeviceSpec DeviceSpec::preset(const std::string& name) {
  const Arch arch = parseArch(name);
  if (arch == Arch::Sm80) return DeviceSpec{"A100 (sm_80 preset)", 8, 0, 108, 163 * 1024, 40LL * 1024 * 1024};
  return DeviceSpec{"H100 SXM (sm_90 preset)", 9, 0, 132, 227 * 1024, 50LL * 1024 * 1024};
}

}  // namespace tilegrid::scheduler
