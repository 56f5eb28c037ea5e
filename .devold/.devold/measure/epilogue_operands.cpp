#include "measure/epilogue_operands.h"

#include <algorithm>

#include "tilegrid/codegen/pointwise_epilogue.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/epilogue_args.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/host_dtype.h"

namespace tilegrid::runtime {
namespace {

using ir::EpOp;

uintptr_t address(const DeviceBuffer& b) { return static_cast<uintptr_t>(b.ptr()); }

std::vector<float> hostValues(const std::optional<DeviceBuffer>& buffer, scheduler::DType type) {
  return buffer ? decode(buffer->toHost<uint8_t>(), type) : std::vector<float>{};
}

}  // namespace

EpilogueBuffers::EpilogueBuffers(const MatmulProblem& p, uint64_t seed) {
  const auto matrix = [&](std::optional<DeviceBuffer>& buffer, scheduler::DType type, uint64_t s) {
    const size_t count = static_cast<size_t>(p.batch * p.m * p.n);
    buffer.emplace(count * static_cast<size_t>(scheduler::bytes(type)));
    fillRandomOnDevice(*buffer, type, count, s);
  };
  args.alpha = 1.25f;
  args.beta = -0.5f;
  const bool bias_m = p.epilogueUses(EpOp::BiasM);
  if (bias_m || p.epilogueUses(EpOp::BiasN)) {
    const int64_t length = bias_m ? p.m : p.n;
    bias.emplace(static_cast<size_t>(p.batch * length * scheduler::bytes(*p.bias_dtype)));
    fillRandomOnDevice(*bias, *p.bias_dtype, static_cast<size_t>(p.batch * length), seed + 10);
    args.bias = reinterpret_cast<const void*>(address(*bias));
    args.bias_batch_stride = p.batch > 1 ? length : 0;
  }
  if (p.epilogueUses(EpOp::C)) {
    matrix(c, *p.c_in_dtype, seed + 11);
    args.c = reinterpret_cast<const void*>(address(*c));
  }
  if (p.epilogueUses(EpOp::Residual)) {
    matrix(residual, *p.residual_dtype, seed + 12);
    args.residual = reinterpret_cast<const void*>(address(*residual));
  }
  if (p.hasAux()) {
    aux.emplace(static_cast<size_t>(p.batch * p.m * p.n * scheduler::bytes(*p.aux_dtype)));
    args.aux = reinterpret_cast<void*>(address(*aux));
  }
  const bool rows = p.scale == scheduler::ScaleMode::Row;
  const auto scales = [&](std::optional<DeviceBuffer>& buffer, int64_t length, const float*& ptr, int64_t& stride,
                          uint64_t s) {
    const int64_t count = rows ? p.batch * length : 1;
    buffer.emplace(static_cast<size_t>(count) * 4);
    fillRandomOnDevice(*buffer, scheduler::DType::FP32, static_cast<size_t>(count), s, 0.5f, 2.0f);
    ptr = reinterpret_cast<const float*>(address(*buffer));
    stride = rows && p.batch > 1 ? length : 0;
  };
  if (p.epilogueUses(EpOp::ScaleA)) scales(scale_a, p.m, args.scale_a, args.scale_a_batch_stride, seed + 13);
  if (p.epilogueUses(EpOp::ScaleB)) scales(scale_b, p.n, args.scale_b, args.scale_b_batch_stride, seed + 14);
  if (p.scale == scheduler::ScaleMode::Block128) {
    const auto blocks = [&](std::optional<DeviceBuffer>& buffer, int64_t count, const float*& ptr, int64_t& stride,
                            uint64_t s) {
      buffer.emplace(static_cast<size_t>(p.batch * count) * 4);
      fillRandomOnDevice(*buffer, scheduler::DType::FP32, static_cast<size_t>(p.batch * count), s, 0.5f, 2.0f);
      ptr = reinterpret_cast<const float*>(address(*buffer));
      stride = p.batch > 1 ? count : 0;
    };
    blocks(scale_a, scheduler::scaleBlocks(p.k) * p.m, args.scale_a, args.scale_a_batch_stride, seed + 13);
    blocks(scale_b, scheduler::scaleBlocks(p.n) * scheduler::blockScaleStride(p.k), args.scale_b,
           args.scale_b_batch_stride, seed + 14);
  }
  synchronizeDevice();
}

std::vector<float> applyEpilogueOnHost(const MatmulProblem& p, const std::vector<float>& acc,
                                       const EpilogueBuffers& buffers, std::vector<float>* aux) {
  TG_INTERNAL_CHECK(acc.size() == static_cast<size_t>(p.batch * p.m * p.n)) << "a dense result has batch x M x N values";
  if (p.epilogue.isIdentity()) return acc;
  const std::vector<float> bias = hostValues(buffers.bias, p.bias_dtype.value_or(p.out_dtype));
  const std::vector<float> c = hostValues(buffers.c, p.c_in_dtype.value_or(p.out_dtype));
  const std::vector<float> residual = hostValues(buffers.residual, p.residual_dtype.value_or(p.out_dtype));
  const std::vector<float> scale_a = hostValues(buffers.scale_a, scheduler::DType::FP32);
  const std::vector<float> scale_b = hostValues(buffers.scale_b, scheduler::DType::FP32);
  const bool rows = p.scale == scheduler::ScaleMode::Row;
  const bool bias_m = p.epilogueUses(EpOp::BiasM);
  std::vector<float> out(acc.size());
  if (aux) aux->assign(p.hasAux() ? acc.size() : 0, 0.0f);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t m = 0; m < p.m; ++m) {
      for (int64_t n = 0; n < p.n; ++n) {
        const size_t i = static_cast<size_t>((b * p.m + m) * p.n + n);
        ir::EpLeaves leaves;
        leaves.acc = acc[i];
        leaves.alpha = buffers.args.alpha;
        leaves.beta = buffers.args.beta;
        if (!bias.empty()) leaves.bias = bias[static_cast<size_t>(b * buffers.args.bias_batch_stride + (bias_m ? m : n))];
        if (!c.empty()) leaves.c = c[i];
        if (!residual.empty()) leaves.residual = residual[i];
        if (!scale_a.empty()) {
          leaves.scale_a = rows ? scale_a[static_cast<size_t>(b * buffers.args.scale_a_batch_stride + m)] : scale_a[0];
        }
        if (!scale_b.empty()) {
          leaves.scale_b = rows ? scale_b[static_cast<size_t>(b * buffers.args.scale_b_batch_stride + n)] : scale_b[0];
        }
        double aux_value = 0;
        out[i] = static_cast<float>(p.epilogue.evaluate(leaves, &aux_value));
        if (aux && p.hasAux()) (*aux)[i] = static_cast<float>(aux_value);
      }
    }
  }
  return out;
}

void applyBlockScales(const MatmulProblem& p, const EpilogueBuffers& buffers, std::vector<float>& a,
                      std::vector<float>& b) {
  TG_INTERNAL_CHECK(p.scale == scheduler::ScaleMode::Block128 && p.layout == scheduler::Layout::TN &&
                    buffers.scale_a && buffers.scale_b)
      << "block scales apply to K-major 8-bit operands with their scale buffers";
  const std::vector<float> sa = hostValues(buffers.scale_a, scheduler::DType::FP32);
  const std::vector<float> sb = hostValues(buffers.scale_b, scheduler::DType::FP32);
  const int64_t stride = scheduler::blockScaleStride(p.k);
  for (int64_t batch = 0; batch < p.batch; ++batch) {
    for (int64_t m = 0; m < p.m; ++m) {
      for (int64_t k = 0; k < p.k; ++k) {
        a[static_cast<size_t>(batch * p.batchStrideA() + m * p.leadingDimA() + k)] *=
            sa[static_cast<size_t>(batch * buffers.args.scale_a_batch_stride + k / scheduler::kScaleBlock * p.m + m)];
      }
    }
    for (int64_t n = 0; n < p.n; ++n) {
      for (int64_t k = 0; k < p.k; ++k) {
        b[static_cast<size_t>(batch * p.batchStrideB() + n * p.leadingDimB() + k)] *=
            sb[static_cast<size_t>(batch * buffers.args.scale_b_batch_stride + n / scheduler::kScaleBlock * stride +
                                   k / scheduler::kScaleBlock)];
      }
    }
  }
}

std::vector<float> auxOutput(const MatmulProblem& p, const EpilogueBuffers& buffers) {
  TG_INTERNAL_CHECK(buffers.aux.has_value()) << "the problem's epilogue has no auxiliary output";
  return decode(buffers.aux->toHost<uint8_t>(), p.aux_dtype.value_or(p.out_dtype));
}

PointwiseEpilogue::PointwiseEpilogue(const MatmulProblem& problem) : problem_(problem) {
  const codegen::KernelSource source = codegen::emitPointwiseEpilogue(problem_);
  const scheduler::DeviceSpec device = currentDeviceSpec();
  kernel_ = std::make_unique<LoadedKernel>(*KernelCache::global().get(source, device.arch()));
  launch_ = source.launch;
  // Enough threads to keep every SM's memory pipes busy; they stride over the rest.
  const int64_t chunks = problem_.batch * problem_.m * (problem_.n / codegen::pointwiseVector(problem_));
  const int64_t blocks = (chunks + launch_.block[0] - 1) / launch_.block[0];
  launch_.grid = {static_cast<uint32_t>(std::min<int64_t>(blocks, int64_t{device.sm_count} * 16)), 1, 1};
}

void PointwiseEpilogue::operator()(CUdeviceptr c, const EpilogueArgs& args, CUstream stream) {
  KernelArgs kernel_args;
  kernel_args.add(c)
      .add(static_cast<int>(problem_.m))
      .add(static_cast<int>(problem_.n))
      .add(static_cast<int>(problem_.batch))
      .add(static_cast<long long>(problem_.leadingDimC()))
      .add(static_cast<long long>(problem_.batchStrideC()))
      .add(epilogueLaunchArgs(problem_, args));
  kernel_->launch(launch_, kernel_args, stream);
}

}  // namespace tilegrid::runtime
