#pragma once
// What a GEMM computes (MatmulProblem) and what it runs on (DeviceSpec): the scheduler's inputs.
#include <cstdint>
#include <optional>
#include <string>

#include "tilegrid/ir/epilogue.h"

namespace tilegrid::scheduler {

// E4M3 and E5M2 are the 8-bit floats of Hopper's tensor cores (inputs only): 4 exponent bits and 3
// mantissa bits (bias 7, no infinities, largest 448), or 5 and 2 (bias 15, IEEE-like, largest 57344).
enum class DType { BF16, FP16, FP32, E4M3, E5M2 };

int64_t bytes(DType type);
const char* toString(DType type);
DType parseDType(const std::string& text);
// The tensor-core input dtypes only (bf16, fp16, e4m3, e5m2): what A and B may be.
DType parseInputDType(const std::string& text);
// The output dtypes: bf16, fp16, fp32.
DType parseOutputDType(const std::string& text);
inline bool isFp8(DType type) { return type == DType::E4M3 || type == DType::E5M2; }

// How the scales that dequantize 8-bit inputs apply (DeepSeek-V3 / cuBLASLt terms):
//   None      the product as computed (no scales)
//   Tensor    one float for A and one for B, read from device memory: acc * scale_a * scale_b
//   Row       a float per row of A (M of them) and per column of B (N): acc * scale_a[m] * scale_b[n]
//   Block128  a float per 1x128 block of A (row m, K block kb) and per 128x128 block of B (column
//             block nb, K block kb), applied to each K block's partial product in the main loop
//             (DeepSeek-V3's recipe). Laid out as cuBLASLt and torch._scaled_mm take them: A's at
//             kb * M + m (M contiguous), B's at nb * blockScaleStride(K) + kb (K blocks padded to 4).
// Tensor and Row are epilogue leaves (ir::EpOp::ScaleA, ScaleB): validate() puts them on the
// accumulator where the epilogue does not read them itself. Block scales are the main loop's: the
// epilogue sees the scaled sum and names no scale.
enum class ScaleMode { None, Tensor, Row, Block128 };
const char* toString(ScaleMode mode);
ScaleMode parseScaleMode(const std::string& text);
// Block128: the K extent of a block and the K blocks of `k`, and the row stride of B's block scales.
inline constexpr int64_t kScaleBlock = 128;
inline int64_t scaleBlocks(int64_t extent) { return (extent + kScaleBlock - 1) / kScaleBlock; }
inline int64_t blockScaleStride(int64_t k) { return (scaleBlocks(k) + 3) / 4 * 4; }

// Which dimension of an operand is contiguous in memory: K-major (A row-major M x K, B stored N x K)
// or MN-major (A column-major, B row-major K x N).
enum class Major { K, MN };
const char* toString(Major major);

// BLAS naming, as nvFuser and cuBLAS use it: the first letter is A, the second B. For A, T means
// K-major and N means M-major; for B, N means K-major and T means N-major. TN is both K-major.
enum class Layout { TN, NT, NN, TT };
const char* toString(Layout layout);
Layout parseLayout(const std::string& text);
Major majorOfA(Layout layout);
Major majorOfB(Layout layout);
// The layout with these majors of A and B.
Layout layoutOf(Major a, Major b);

// C[M, N] = A[M, K] * B[K, N] (batch times), fp32 accumulation, C row-major.
struct MatmulProblem {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  DType a_dtype = DType::BF16;
  DType b_dtype = DType::BF16;
  DType out_dtype = DType::BF16;
  Layout layout = Layout::TN;
  // Elements by which the pointers and leading dimensions of A, B and C are known to be aligned
  // (a power of two). 0 means "derive from the leading dimensions", which assumes aligned pointers.
  int64_t align_a = 0, align_b = 0, align_c = 0;
  // Leading dimensions: elements from one stored row of an operand to the next (at least its
  // contiguous extent). 0 means packed.
  int64_t lda = 0, ldb = 0, ldc = 0;
  // Batch strides: elements from one batch entry of an operand to the next (at least its leading
  // dimension times its rows, so that entries do not overlap). 0 means packed.
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  // Applied to every fp32 result before it is stored (ir/epilogue.h): the identity by default. Its
  // operands (bias, c, residual, aux) are passed at launch (runtime::EpilogueArgs).
  ir::Epilogue epilogue;
  // Element types of the epilogue's bias vector, its input matrices c and residual, and its
  // auxiliary output: out_dtype where unset (validate() fills them in).
  std::optional<DType> bias_dtype, c_in_dtype, residual_dtype, aux_dtype;
  // Scales of 8-bit inputs (fp32, passed at launch beside the epilogue's operands).
  ScaleMode scale = ScaleMode::None;

  // Checks every field and fills the derived alignments, leading dimensions and batch strides.
  // An operand whose alignment is derived and that is one contiguous row (A or C with M = 1, B with
  // N = 1) is described K-major with its leading dimension rounded up to whole 16 bytes: the same
  // memory, read without a padded copy (layout and leading dimensions may change; spans do not).
  // Throws UserError saying what is wrong.
  MatmulProblem& validate();

  // The operand's contiguous extent and its number of stored rows, as laid out in memory.
  int64_t contiguousA() const { return majorOfA(layout) == Major::K ? k : m; }
  int64_t contiguousB() const { return majorOfB(layout) == Major::K ? k : n; }
  int64_t rowsA() const { return majorOfA(layout) == Major::K ? m : k; }
  int64_t rowsB() const { return majorOfB(layout) == Major::K ? n : k; }
  int64_t leadingDimA() const { return lda ? lda : contiguousA(); }
  int64_t leadingDimB() const { return ldb ? ldb : contiguousB(); }
  int64_t leadingDimC() const { return ldc ? ldc : n; }
  int64_t batchStrideA() const { return stride_a ? stride_a : leadingDimA() * rowsA(); }
  int64_t batchStrideB() const { return stride_b ? stride_b : leadingDimB() * rowsB(); }
  int64_t batchStrideC() const { return stride_c ? stride_c : leadingDimC() * m; }
  // The wgmma instruction's K for the inputs: 32 bytes of each operand's rows (k16 for 16-bit types,
  // k32 for 8-bit).
  int64_t instructionK() const { return 32 / bytes(a_dtype); }
  // Elements from an operand's first to one past its last, over every batch entry: what its buffer
  // must hold.
  int64_t spanA() const { return (batch - 1) * batchStrideA() + (rowsA() - 1) * leadingDimA() + contiguousA(); }
  int64_t spanB() const { return (batch - 1) * batchStrideB() + (rowsB() - 1) * leadingDimB() + contiguousB(); }
  int64_t spanC() const { return (batch - 1) * batchStrideC() + (m - 1) * leadingDimC() + n; }
  // Whether every operand is stored packed: rows at their contiguous extent, batches back to back.
  bool packed() const;
  // Whether C's rows start and end on 16-byte boundaries: what stores of whole 16-byte chunks (TMA
  // stores, vector stores) need so as not to write past a row's end into the gap before the next
  // (ldc > N). A leading dimension's alignment alone does not say where the row ends.
  bool rowsOfCAreWhole16Bytes() const { return align_c * bytes(out_dtype) == 16 && n * bytes(out_dtype) % 16 == 0; }
  // Whether the epilogue reads (or, for aux, writes) an operand, and its element type.
  bool epilogueUses(ir::EpOp leaf) const { return epilogue.reads(leaf); }
  bool hasAux() const { return epilogue.aux().has_value(); }
  // Whether a launch passes operands beside A, B and C (runtime::EpilogueArgs): the epilogue's, or
  // block scales, which the main loop reads.
  bool takesEpilogueArgs() const { return !epilogue.isIdentity() || scale == ScaleMode::Block128; }
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(batch); }
  std::string toString() const;
  bool operator==(const MatmulProblem&) const = default;
};

// The largest extent, batch count, leading dimension or batch stride kernels index: they count
// rows, columns, K and batch entries in 32-bit integers (offsets are 64-bit where they need it).
inline constexpr int64_t kMaxExtent = 2147483647;

// The same product computed transposed, C^T[N, M] = B^T[N, K] * A^T[K, M]: A's memory is read as the
// new B and B's as the new A, so M and N, the operands' dtypes, alignments, leading dimensions and
// batch strides trade places; TN
// and NT keep their letters, NN and TT swap. The new problem's C is the old C read column-major (its
// leading dimension stays ldc, now between columns), which a MatmulProblem cannot say: it is what a schedule with
// MatmulParams::swap_ab computes, never a problem to validate or run on its own.
MatmulProblem swapOperands(const MatmulProblem& problem);

// a / b rounded up, for positive b.
inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The largest power of two (at most `cap`) dividing `value`.
int64_t largestPow2Divisor(int64_t value, int64_t cap);

enum class Arch { Sm80, Sm90 };
const char* toString(Arch arch);
Arch parseArch(const std::string& text);

struct DeviceSpec {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t smem_per_block = 0;  // bytes, the opt-in maximum for dynamic shared memory
  int64_t l2_bytes = 0;

  // The kernel family this device runs: sm_90 (wgmma, TMA) for compute capability 9.x, else sm_80.
  Arch arch() const;
  // Rejects devices tilegrid cannot target (older than sm_80) or nonsensical figures.
  void validate() const;
  std::string toString() const;

  // Named presets for planning without a GPU: sm_80 (A100 SXM) and sm_90 (H100 SXM).
  static DeviceSpec preset(const std::string& name);
};

}  // namespace tilegrid::scheduler
