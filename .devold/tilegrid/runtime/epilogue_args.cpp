#include "tilegrid/runtime/epilogue_args.h"

#include <cstdint>
#include <string>

#include "tilegrid/ir/check.h"
#include "tilegrid/scheduler/schedule.h"

namespace tilegrid::runtime {
namespace {

using ir::EpOp;

// One operand of C's shape or a vector: what the epilogue needs of it.
struct Operand {
  const char* name;
  const void* ptr;
  scheduler::DType type;
  int64_t ld, batch_stride;  // as given (0: packed)
  bool matrix;
};

void checkOne(const MatmulProblem& p, const Operand& o, int64_t vector_length) {
  TG_USER_CHECK(o.ptr != nullptr) << "epilogue operand " << o.name << ": the epilogue \"" << p.epilogue.toString()
                                  << "\" uses it, but the device pointer is null";
  const uint64_t element = static_cast<uint64_t>(scheduler::bytes(o.type));
  TG_USER_CHECK(reinterpret_cast<uintptr_t>(o.ptr) % element == 0)
      << "epilogue operand " << o.name << ": device pointer " << o.ptr << " is not aligned to its "
      << scheduler::toString(o.type) << " elements (" << element << " bytes)";
  if (o.matrix) {
    TG_USER_CHECK(o.ld == 0 || (o.ld >= p.n && o.ld <= scheduler::kMaxExtent))
        << "epilogue operand " << o.name << ": leading dimension " << o.ld << " must be 0 (packed) or from N = " << p.n
        << " to " << scheduler::kMaxExtent;
    const int64_t ld = o.ld ? o.ld : p.n;
    TG_USER_CHECK(p.batch == 1 || o.batch_stride == 0 || o.batch_stride >= ld * p.m)
        << "epilogue operand " << o.name << ": batch stride " << o.batch_stride
        << " must be 0 (packed) or at least its leading dimension times M = " << ld * p.m
        << ", so that batch entries do not overlap";
  } else {
    TG_USER_CHECK(o.batch_stride == 0 || o.batch_stride >= vector_length)
        << "epilogue operand " << o.name << ": batch stride " << o.batch_stride
        << " must be 0 (one vector for every batch entry) or at least its length, " << vector_length;
  }
}

}  // namespace

void checkEpilogueArgs(const MatmulProblem& p, const EpilogueArgs& a) {
  TG_INTERNAL_CHECK(p.bias_dtype && p.c_in_dtype && p.residual_dtype && p.aux_dtype)
      << "the problem's epilogue types are filled in by validate()";
  const bool bias_m = p.epilogueUses(EpOp::BiasM);
  if (bias_m || p.epilogueUses(EpOp::BiasN)) {
    checkOne(p, {bias_m ? "bias[m]" : "bias[n]", a.bias, *p.bias_dtype, 0, a.bias_batch_stride, false},
             bias_m ? p.m : p.n);
  }
  if (p.epilogueUses(EpOp::C)) checkOne(p, {"c", a.c, *p.c_in_dtype, a.ldc, a.c_batch_stride, true}, 0);
  if (p.epilogueUses(EpOp::Residual)) {
    checkOne(p, {"residual", a.residual, *p.residual_dtype, a.ld_residual, a.residual_batch_stride, true}, 0);
  }
  if (p.hasAux()) checkOne(p, {"aux", a.aux, *p.aux_dtype, a.ld_aux, a.aux_batch_stride, true}, 0);
  if (p.scale == scheduler::ScaleMode::Block128) {
    // A's blocks: M floats a K block; B's: a row of K blocks (padded to four) a 128-column block.
    const int64_t k_blocks = scheduler::scaleBlocks(p.k);
    checkOne(p, {"scale_a (A's 1x128 block scales)", a.scale_a, scheduler::DType::FP32, 0, a.scale_a_batch_stride, false},
             k_blocks * p.m);
    checkOne(p, {"scale_b (B's 128x128 block scales)", a.scale_b, scheduler::DType::FP32, 0, a.scale_b_batch_stride, false},
             scheduler::scaleBlocks(p.n) * scheduler::blockScaleStride(p.k));
    return;
  }
  // Tensor and row scales: one float, or a vector along M (A's) or N (B's) a batch entry.
  const bool rows = p.scale == scheduler::ScaleMode::Row;
  const auto scale = [&](EpOp leaf, const char* name, const char* vector, const float* ptr, int64_t stride,
                         int64_t length) {
    if (!p.epilogueUses(leaf)) return;
    const std::string label = std::string(name) + (rows ? vector : " (one scale)");
    checkOne(p, {label.c_str(), ptr, scheduler::DType::FP32, 0, rows ? stride : 0, false}, rows ? length : 1);
    TG_USER_CHECK(rows || stride == 0) << name << " is one float for every batch entry with tensor scales: its batch "
                                       << "stride must be 0, got " << stride;
  };
  scale(EpOp::ScaleA, "scale_a", " (A's row scales)", a.scale_a, a.scale_a_batch_stride, p.m);
  scale(EpOp::ScaleB, "scale_b", " (B's column scales)", a.scale_b, a.scale_b_batch_stride, p.n);
}

void checkEpilogueAliasing(const scheduler::MatmulSchedule& schedule, const EpilogueArgs& args, const void* c_out) {
  const MatmulProblem& p = schedule.problem;
  if (!p.epilogueUses(EpOp::C) || args.c == nullptr || c_out == nullptr) return;
  const tg_epilogue_args k = epilogueLaunchArgs(p, args);
  const auto begin = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr); };
  const uint64_t in_bytes = static_cast<uint64_t>((p.batch - 1) * k.batch_stride_c + (p.m - 1) * k.ld_c + p.n) *
                            static_cast<uint64_t>(scheduler::bytes(*p.c_in_dtype));
  const uint64_t out_bytes = static_cast<uint64_t>(p.spanC()) * static_cast<uint64_t>(scheduler::bytes(p.out_dtype));
  const bool overlap = begin(args.c) < begin(c_out) + out_bytes && begin(c_out) < begin(args.c) + in_bytes;
  if (!overlap) return;
  const bool same = args.c == c_out && k.ld_c == p.leadingDimC() && (p.batch == 1 || k.batch_stride_c == p.batchStrideC()) &&
                    *p.c_in_dtype == p.out_dtype;
  TG_USER_CHECK(same) << "epilogue operand c overlaps C without being C itself: pass C's own pointer, leading dimension ("
                      << p.leadingDimC() << "), batch stride and type, or a separate buffer";
  // Slabs run along the kernel's N, in either orientation of C.
  const scheduler::MatmulParams& params = schedule.params;
  TG_USER_CHECK(params.arch == scheduler::Arch::Sm80 || params.cta_tile.n % params.epilogue_tile.n == 0)
      << "epilogue operand c is C itself, but kernel tiles " << params.cta_tile.n
      << " columns wide store them in overlapping slabs of " << params.epilogue_tile.n
      << ", re-reading columns already stored: pass c in a separate buffer, or schedule a tile width that is a "
         "multiple of "
      << params.epilogue_tile.n;
}

tg_epilogue_args epilogueLaunchArgs(const MatmulProblem& p, const EpilogueArgs& a) {
  const auto ld = [&](int64_t given) { return static_cast<long long>(given ? given : p.n); };
  const auto stride = [&](int64_t given, int64_t lead) {
    return static_cast<long long>(given ? given : (lead ? lead : p.n) * p.m);
  };
  tg_epilogue_args k{};
  k.bias = a.bias;
  k.c = a.c;
  k.residual = a.residual;
  k.aux = a.aux;
  k.scale_a = a.scale_a;
  k.scale_b = a.scale_b;
  k.batch_stride_scale_a = a.scale_a_batch_stride;
  k.batch_stride_scale_b = a.scale_b_batch_stride;
  k.batch_stride_bias = a.bias_batch_stride;
  k.batch_stride_c = stride(a.c_batch_stride, a.ldc);
  k.batch_stride_residual = stride(a.residual_batch_stride, a.ld_residual);
  k.batch_stride_aux = stride(a.aux_batch_stride, a.ld_aux);
  k.ld_c = ld(a.ldc);
  k.ld_residual = ld(a.ld_residual);
  k.ld_aux = ld(a.ld_aux);
  k.alpha = a.alpha;
  k.beta = a.beta;
  return k;
}

std::optional<codegen::TensorMapSpec> auxTensorMap(const codegen::TensorMapSpec& kernel_map,
                                                   const tg_epilogue_args& args) {
  const uint64_t element = static_cast<uint64_t>(scheduler::bytes(kernel_map.dtype));
  const bool batched = kernel_map.dims.size() == 3;
  TG_INTERNAL_CHECK(kernel_map.strides_bytes.size() + 1 == kernel_map.dims.size() && kernel_map.dims.size() >= 2)
      << "the auxiliary output's map is 2-D, or 3-D when batched";
  const uint64_t row_bytes = static_cast<uint64_t>(args.ld_aux) * element;
  const uint64_t batch_bytes = static_cast<uint64_t>(args.batch_stride_aux) * element;
  if (reinterpret_cast<uintptr_t>(args.aux) % 16 != 0 || row_bytes % 16 != 0 || (batched && batch_bytes % 16 != 0)) {
    return std::nullopt;
  }
  codegen::TensorMapSpec spec = kernel_map;
  spec.strides_bytes[0] = row_bytes;
  if (batched) spec.strides_bytes[1] = batch_bytes;
  return spec;
}

}  // namespace tilegrid::runtime
