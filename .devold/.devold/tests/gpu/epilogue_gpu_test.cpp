// Fused epilogues on the GPU: every kind on shapes that reach each way of storing C (TMA, the threads,
// transposed), stream-K pieces added before the epilogue, batches and fp32 operands, checked against
// cuBLAS's fp32 product with the epilogue applied on the host in double precision (the auxiliary
// output too); and cuBLASLt's fused epilogues checked against the same reference, so that ours and
// cuBLASLt's agree where cuBLASLt has the epilogue.
#include <gtest/gtest.h>

#include "measure/cublas_baseline.h"
#include "measure/cublaslt_baseline.h"
#include "tilegrid/runtime/host_dtype.h"
#include "support/gpu_gemm_check.h"

namespace tilegrid::testing {
namespace {

TEST(FusedEpilogue, Sm80KindsMatchTheHostReference) {
  expectAllCorrect(epilogueCases(scheduler::Arch::Sm80), runtime::Reference::Cublas);
}

TEST(FusedEpilogue, Sm90KindsMatchTheHostReference) {
  expectAllCorrect(epilogueCases(scheduler::Arch::Sm90), runtime::Reference::Cublas);
}

TEST(FusedEpilogue, CublasLtFusedEpiloguesAgreeWithOurs) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  for (const std::string& text : cublasLtEpilogueTexts()) {
    for (const auto& [m, n, k] : {std::array<int64_t, 3>{1000, 1032, 256}, std::array<int64_t, 3>{256, 4096, 512}}) {
      scheduler::MatmulProblem p = makeProblem(m, n, k, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16);
      p.epilogue = ir::Epilogue::parse(text);
      ASSERT_TRUE(runtime::CublasLtGemm::epilogueFor(p).has_value()) << text;
      const auto schedule = scheduler::schedule(p, device);
      const auto source = codegen::emit(schedule);
      runtime::RunOptions options;
      options.iterations = 0;
      const runtime::RunResult r = runtime::runMatmul(schedule, source, options);
      ASSERT_TRUE(r.errors && r.cublaslt_errors) << text;
      EXPECT_TRUE(r.errors->passed) << text << " " << m << "x" << n << "x" << k << ": ours, norm rel " << r.errors->norm_rel
                                    << ", aux " << r.errors->aux_norm_rel;
      EXPECT_TRUE(r.cublaslt_errors->passed) << text << " " << m << "x" << n << "x" << k << ": cuBLASLt "
                                             << *r.cublaslt_epilogue << ", norm rel " << r.cublaslt_errors->norm_rel
                                             << ", aux " << r.cublaslt_errors->aux_norm_rel;
    }
  }
}

TEST(FusedEpilogue, BetaTimesCInPlace) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  for (const scheduler::Arch arch : {scheduler::Arch::Sm80, scheduler::Arch::Sm90}) {
    if (arch == scheduler::Arch::Sm90 && device.arch() != scheduler::Arch::Sm90) continue;
    scheduler::MatmulProblem p = makeProblem(1000, 1024, 320, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16);
    p.epilogue = ir::Epilogue::parse("alpha * acc + beta * c");
    scheduler::ScheduleOverrides o;
    o.arch = arch;
    if (arch == scheduler::Arch::Sm90) {
      o.cta_tile = scheduler::TileShape{128, 128, 64};  // whole 64-column slabs: C may be c
      o.width_at_launch = false;
    }
    const Gemm gemm(scheduler::schedule(p, device, o));
    runtime::MatmulBuffers buffers(gemm.problem(), 7);
    runtime::fillRandomOnDevice(buffers.c, p.out_dtype, static_cast<size_t>(p.m * p.n), 99);
    runtime::synchronizeDevice();
    const std::vector<float> c0 = runtime::decode(buffers.c.toHost<uint8_t>(), p.out_dtype);
    // The reference: cuBLAS's fp32 product, then alpha * acc + beta * c0 on the host.
    scheduler::MatmulProblem product = gemm.problem();
    product.epilogue = {};
    product.out_dtype = scheduler::DType::FP32;
    runtime::DeviceBuffer prod(static_cast<size_t>(p.m * p.n) * 4);
    runtime::CublasGemm().run(product, buffers.a.ptr(), buffers.b.ptr(), prod.ptr(), nullptr);
    runtime::synchronizeDevice();
    const std::vector<float> acc = runtime::decode(prod.toHost<uint8_t>(), scheduler::DType::FP32);
    EpilogueArgs args;
    args.alpha = 0.75f;
    args.beta = -1.5f;
    const auto ptr = [](const runtime::DeviceBuffer& d) { return reinterpret_cast<void*>(static_cast<uintptr_t>(d.ptr())); };
    args.c = ptr(buffers.c);
    std::optional<runtime::DeviceBuffer> workspace;
    if (gemm.workspaceSize() > 0) {
      workspace.emplace(gemm.workspaceSize());
      workspace->fill(0, nullptr);
    }
    gemm.run(ptr(buffers.a), ptr(buffers.b), ptr(buffers.c), workspace ? ptr(*workspace) : nullptr,
             workspace ? workspace->bytes() : 0, nullptr, args);
    runtime::synchronizeDevice();
    std::vector<float> expected(acc.size());
    for (size_t i = 0; i < acc.size(); ++i) expected[i] = args.alpha * acc[i] + args.beta * c0[i];
    const runtime::ErrorStats e =
        runtime::compareOutputs(runtime::decode(buffers.c.toHost<uint8_t>(), p.out_dtype), expected, p.out_dtype);
    EXPECT_TRUE(e.passed) << scheduler::toString(arch) << " " << gemm.source().kernel_name << ": norm rel " << e.norm_rel;
  }
}

TEST(FusedEpilogue, MissingOrMisplacedOperandsAreRefusedBeforeTheLaunch) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  scheduler::MatmulProblem p = makeProblem(256, 256, 64, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16);
  p.epilogue = ir::Epilogue::parse("relu(acc + bias[m]); aux = beta * c");
  const Gemm gemm(p);
  runtime::DeviceBuffer a(256 * 64 * 2), b(256 * 64 * 2), c(256 * 256 * 2), other(256 * 256 * 2);
  const auto ptr = [](const runtime::DeviceBuffer& d) { return reinterpret_cast<void*>(static_cast<uintptr_t>(d.ptr())); };
  EpilogueArgs args;
  args.bias = ptr(other);
  args.c = ptr(other);
  args.aux = nullptr;
  try {
    gemm.run(ptr(a), ptr(b), ptr(c), nullptr, 0, nullptr, args);
    ADD_FAILURE() << "a null aux was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("epilogue operand aux"), std::string::npos) << e.what();
  }
  args.aux = ptr(other);
  args.ldc = 100;  // under N = 256
  try {
    gemm.run(ptr(a), ptr(b), ptr(c), nullptr, 0, nullptr, args);
    ADD_FAILURE() << "a leading dimension under N was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("epilogue operand c: leading dimension 100"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilegrid::testing
