#include "tilegrid/scheduler/problem.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "tilegrid/ir/enum_names.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::scheduler {

int64_t bytes(DType type) { return type == DType::FP32 ? 4 : isFp8(type) ? 1 : 2; }

const char* toString(DType type) {
  switch (type) {
    case DType::BF16: return "bf16";
    case DType::FP16: return "fp16";
    case DType::FP32: return "fp32";
    case DType::E4M3: return "e4m3";
    case DType::E5M2: return "e5m2";
  }
  return "?";
}

DType parseDType(const std::string& text) {
  return parseEnum(text, {DType::BF16, DType::FP16, DType::FP32, DType::E4M3, DType::E5M2},
                   [](DType t) { return toString(t); }, "dtype");
}

DType parseInputDType(const std::string& text) {
  for (DType t : {DType::BF16, DType::FP16, DType::E4M3, DType::E5M2}) {
    if (text == toString(t)) return t;
  }
  TG_USER_ERROR() << "A and B must be bf16, fp16, e4m3 or e5m2 (tensor-core inputs), got '" << text << "'";
  return DType::BF16;
}

DType parseOutputDType(const std::string& text) {
  for (DType t : {DType::BF16, DType::FP16, DType::FP32}) {
    if (text == toString(t)) return t;
  }
  TG_USER_ERROR() << "outputs are bf16, fp16 or fp32, got '" << text << "'";
  return DType::BF16;
}

const char* toString(ScaleMode mode) {
  switch (mode) {
    case ScaleMode::None: return "none";
    case ScaleMode::Tensor: return "tensor";
    case ScaleMode::Row: return "row";
    case ScaleMode::Block128: return "block128";
  }
  return "?";
}

ScaleMode parseScaleMode(const std::string& text) {
  return parseEnum(text, {ScaleMode::None, ScaleMode::Tensor, ScaleMode::Row, ScaleMode::Block128},
                   [](ScaleMode m) { return toString(m); }, "scale mode");
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

Layout layoutOf(Major a, Major b) {
  if (a == Major::K) return b == Major::K ? Layout::TN : Layout::TT;
  return b == Major::K ? Layout::NN : Layout::NT;
}

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

// One stored operand: `rows` rows of `contiguous` elements, `ld` apart, `batch` entries `stride`
// apart. Fills the packed leading dimension and stride where they are 0, checks the rest, and
// checks that every offset fits in 64 bits of bytes.
void checkOperandLayout(const char* operand, const char* ld_name, int64_t rows, int64_t contiguous, int64_t batch,
                        int64_t& ld, int64_t& stride, DType type) {
  TG_USER_CHECK(ld >= 0 && ld <= kMaxExtent)
      << ld_name << " is " << ld << ": a leading dimension is 0 (packed) or from " << contiguous
      << " (the contiguous extent of " << operand << ") to " << kMaxExtent;
  if (ld == 0) ld = contiguous;
  TG_USER_CHECK(ld >= contiguous) << ld_name << " is " << ld << ", less than the " << contiguous
                                  << " contiguous elements of a row of " << operand
                                  << ": rows would overlap (use 0 for packed rows, or at least " << contiguous << ")";
  const std::optional<int64_t> packed = checkedMul(ld, rows);
  TG_USER_CHECK(packed.has_value()) << operand << " (" << rows << " rows " << ld
                                    << " elements apart) has more elements than a 64-bit offset can address";
  TG_USER_CHECK(stride >= 0) << "the batch stride of " << operand << " is " << stride
                             << ": it is 0 (packed) or at least " << *packed;
  if (stride == 0 || batch == 1) stride = stride == 0 ? *packed : stride;
  TG_USER_CHECK(batch == 1 || stride >= *packed)
      << "the batch stride of " << operand << " is " << stride << " elements, less than one entry's " << *packed
      << " (" << rows << " rows of leading dimension " << ld << "): batch entries would overlap";
  // (batch - 1) * stride + (rows - 1) * ld + contiguous, each step checked.
  std::optional<int64_t> span = checkedMul(batch - 1, stride);
  const std::optional<int64_t> last_row = checkedMul(rows - 1, ld);
  if (span && last_row) {
    int64_t sum = 0;
    const bool overflow = __builtin_add_overflow(*span, *last_row, &sum) || __builtin_add_overflow(sum, contiguous, &sum);
    span = overflow ? std::nullopt : std::optional<int64_t>(sum);
  } else {
    span = std::nullopt;
  }
  if (span) span = checkedMul(*span, bytes(type));
  TG_USER_CHECK(span.has_value()) << operand << " (" << rows << " x " << contiguous << ", leading dimension " << ld
                                  << ", batch " << batch << " entries " << stride << " apart, "
                                  << toString(type) << ") spans more bytes than a 64-bit offset can address";
}

// Fills a derived alignment (the largest power of two dividing the leading dimension and batch
// stride, up to a 16-byte vector) or checks a given one against them.
void checkAlignment(int64_t& align, int64_t ld, int64_t stride, int64_t batch, DType type, const char* operand) {
  const int64_t max_align = 16 / bytes(type);  // 16-byte vectors are the widest access
  const int64_t derived = std::min(largestPow2Divisor(ld, max_align),
                                   batch > 1 ? largestPow2Divisor(stride, max_align) : max_align);
  if (align == 0) {
    align = derived;
    return;
  }
  TG_USER_CHECK(align >= 1 && (align & (align - 1)) == 0 && align <= max_align)
      << "alignment of " << operand << " is " << align << " elements: it must be a power of two from 1 to "
      << max_align << " for " << toString(type);
  TG_USER_CHECK(ld % align == 0) << "alignment of " << operand << " is " << align
                                 << " elements, but its leading dimension " << ld << " is not a multiple of it";
  TG_USER_CHECK(batch == 1 || stride % align == 0) << "alignment of " << operand << " is " << align
                                                   << " elements, but its batch stride " << stride
                                                   << " is not a multiple of it";
}

// An operand stored as one row (A with M = 1, B with N = 1, C with M = 1) is the same memory
// whichever way it is described, as long as its elements are contiguous: an MN-major column of K
// elements one apart is a K-major row, and a single row's leading dimension is never stepped by.
// Describing such an operand K-major, its leading dimension rounded up to whole 16-byte vectors,
// lets kernels read it with 16-byte copies and TMA instead of through a padded copy. The batch
// stride keeps what the caller's description gives it. Runs on the raw fields, before they are
// checked: anything it cannot read this way is left for the checks to judge.
void describeOneRowContiguous(Major& major, int64_t rows_of_k_major, int64_t k, int64_t batch, int64_t& ld,
                              int64_t& stride, DType type) {
  if (rows_of_k_major != 1 || ld < 0 || stride < 0 || k < 1 || k > kMaxExtent) return;
  if (major == Major::MN) {
    if (ld > 1) return;  // K elements ld apart: not contiguous
    if (stride == 0) stride = k;  // the packed stride of K rows of one element
    major = Major::K;
    ld = k;
  }
  if (ld == 0) ld = k;
  if (stride == 0) stride = ld;  // packed: one row
  const int64_t granule = 16 / bytes(type);
  const int64_t whole = ceilDiv(k, granule) * granule;
  if (ld >= k && whole <= kMaxExtent && (batch == 1 || stride >= whole)) ld = whole;
}

}  // namespace

MatmulProblem& MatmulProblem::validate() {
  TG_USER_CHECK(m >= 1 && n >= 1 && k >= 1) << "M, N and K must be >= 1, got M=" << m << " N=" << n << " K=" << k;
  TG_USER_CHECK(m <= kMaxExtent && n <= kMaxExtent && k <= kMaxExtent)
      << "M, N and K must be at most " << kMaxExtent << " (kernels count them in 32 bits), got M=" << m << " N=" << n
      << " K=" << k;
  TG_USER_CHECK(batch >= 1 && batch <= kMaxExtent) << "batch must be from 1 to " << kMaxExtent << ", got " << batch;
  TG_USER_CHECK(a_dtype != DType::FP32 && b_dtype != DType::FP32)
      << "A and B must be bf16, fp16, e4m3 or e5m2 (tensor-core inputs), got " << scheduler::toString(a_dtype)
      << " and " << scheduler::toString(b_dtype);
  const bool fp8 = isFp8(a_dtype);
  TG_USER_CHECK(fp8 ? isFp8(b_dtype) : a_dtype == b_dtype)
      << "A and B must have the same 16-bit dtype, or be 8-bit floats (e4m3 and e5m2 in any mix), got "
      << scheduler::toString(a_dtype) << " and " << scheduler::toString(b_dtype);
  TG_USER_CHECK(!isFp8(out_dtype)) << "C is bf16, fp16 or fp32, got " << scheduler::toString(out_dtype)
                                   << " (8-bit inputs accumulate in fp32 like the others)";
  TG_USER_CHECK(fp8 || scale == ScaleMode::None)
      << "scales (" << scheduler::toString(scale) << ") dequantize 8-bit inputs; A and B here are "
      << scheduler::toString(a_dtype) << ": use --scale none, or e4m3/e5m2 inputs";
  // Alignments a caller gives are checked against the leading dimensions the caller gave.
  Major major_a = majorOfA(layout), major_b = majorOfB(layout), major_c = Major::K;
  if (align_a == 0) describeOneRowContiguous(major_a, m, k, batch, lda, stride_a, a_dtype);
  if (align_b == 0) describeOneRowContiguous(major_b, n, k, batch, ldb, stride_b, b_dtype);
  if (align_c == 0) describeOneRowContiguous(major_c, m, n, batch, ldc, stride_c, out_dtype);
  layout = layoutOf(major_a, major_b);
  // wgmma reads 8-bit operands from K-major shared memory only, and TMA copies rows as they are: an
  // MN-major 8-bit operand would need a transposing copy, which is the caller's to make (once, where
  // weights are quantized) rather than a hidden pass before every launch.
  TG_USER_CHECK(!fp8 || layout == Layout::TN)
      << "8-bit operands must both be K-major (layout TN: A row-major M x K, B stored N x K), got "
      << scheduler::toString(layout) << ": wgmma reads e4m3/e5m2 K-major only; store the MN-major operand "
      << "transposed";
  checkOperandLayout("A", "lda", rowsA(), contiguousA(), batch, lda, stride_a, a_dtype);
  checkOperandLayout("B", "ldb", rowsB(), contiguousB(), batch, ldb, stride_b, b_dtype);
  checkOperandLayout("C", "ldc", m, n, batch, ldc, stride_c, out_dtype);
  checkAlignment(align_a, lda, stride_a, batch, a_dtype, "A");
  checkAlignment(align_b, ldb, stride_b, batch, b_dtype, "B");
  checkAlignment(align_c, ldc, stride_c, batch, out_dtype, "C");
  for (std::optional<DType>* t : {&bias_dtype, &c_in_dtype, &residual_dtype, &aux_dtype}) {
    if (!t->has_value()) *t = out_dtype;
    TG_USER_CHECK(!isFp8(**t)) << "the epilogue's operands are bf16, fp16 or fp32, got " << scheduler::toString(**t);
  }
  const bool reads_scales = epilogue.reads(ir::EpOp::ScaleA) || epilogue.reads(ir::EpOp::ScaleB);
  TG_USER_CHECK(scale != ScaleMode::None || !reads_scales)
      << "the epilogue \"" << epilogue.toString() << "\" reads scale_a or scale_b, but the problem has no scales "
      << "(scale none): give tensor or row scales";
  TG_USER_CHECK(scale != ScaleMode::Block128 || !reads_scales)
      << "the epilogue \"" << epilogue.toString() << "\" reads scale_a or scale_b, but block scales apply to each K "
      << "block's product in the main loop: the epilogue's acc is already scaled";
  // Scales the epilogue does not place itself multiply the accumulator, before anything else.
  if ((scale == ScaleMode::Tensor || scale == ScaleMode::Row) && !reads_scales) {
    epilogue = ir::scaleAccumulator(epilogue);
  }
  return *this;
}

bool MatmulProblem::packed() const {
  return leadingDimA() == contiguousA() && leadingDimB() == contiguousB() && leadingDimC() == n &&
         (batch == 1 || (batchStrideA() == leadingDimA() * rowsA() && batchStrideB() == leadingDimB() * rowsB() &&
                         batchStrideC() == leadingDimC() * m));
}

std::string MatmulProblem::toString() const {
  std::string text = fmt::format("{}x{}x{}", m, n, k);
  if (batch != 1) text += fmt::format(" batch {}", batch);
  const std::string inputs = a_dtype == b_dtype ? scheduler::toString(a_dtype)
                                                : fmt::format("{}x{}", scheduler::toString(a_dtype), scheduler::toString(b_dtype));
  text += fmt::format(" {} {}->{} (align A/B/C {}/{}/{})", scheduler::toString(layout), inputs,
                      scheduler::toString(out_dtype), align_a, align_b, align_c);
  if (!packed()) {
    text += fmt::format(" ld A/B/C {}/{}/{}", leadingDimA(), leadingDimB(), leadingDimC());
    if (batch != 1) text += fmt::format(" batch strides {}/{}/{}", batchStrideA(), batchStrideB(), batchStrideC());
  }
  if (scale != ScaleMode::None) text += fmt::format(" scales {}", scheduler::toString(scale));
  if (!epilogue.isIdentity()) {
    text += " epilogue \"" + epilogue.toString() + "\"";
    const std::pair<const char*, const std::optional<DType>*> types[] = {
        {"bias", &bias_dtype}, {"c", &c_in_dtype}, {"residual", &residual_dtype}, {"aux", &aux_dtype}};
    for (const auto& [name, t] : types) {
      if (t->has_value() && **t != out_dtype) text += fmt::format(" {} {}", name, scheduler::toString(**t));
    }
  }
  return text;
}

MatmulProblem swapOperands(const MatmulProblem& problem) {
  MatmulProblem swapped = problem;
  swapped.m = problem.n;
  swapped.n = problem.m;
  swapped.a_dtype = problem.b_dtype;
  swapped.b_dtype = problem.a_dtype;
  swapped.align_a = problem.align_b;
  swapped.align_b = problem.align_a;
  swapped.lda = problem.ldb;
  swapped.ldb = problem.lda;
  swapped.stride_a = problem.stride_b;
  swapped.stride_b = problem.stride_a;
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
