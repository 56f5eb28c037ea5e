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
#include "support/kernel_config.h"

namespace tilegrid::testing {
namespace {

// Where an epilogue matrix (aux or c) of a batch of M x N lies in its buffer: rows `ld` elements
// apart, batch entries `batch_stride`, starting `offset` elements past a 256-byte aligned buffer.
struct MatrixLayout {
  const char* what;
  int64_t ld, batch_stride, offset;
  size_t elements(const scheduler::MatmulProblem& p) const {
    return static_cast<size_t>(offset + batch_stride * (p.batch - 1) + ld * (p.m - 1) + p.n);
  }
  // The element's (batch, row, column), or false where it lies between rows or entries.
  bool inside(const scheduler::MatmulProblem& p, int64_t element, int64_t& at) const {
    const int64_t e = element - offset, batch = e / batch_stride, row = e % batch_stride / ld, col = e % batch_stride % ld;
    at = (batch * p.m + row) * p.n + col;
    return e >= 0 && batch < p.batch && row < p.m && col < p.n;
  }
};

// The layouts the tests below launch with: TMA takes the first two, the threads the others (the
// pointer, the rows or the batch entries off 16 bytes).
std::vector<MatrixLayout> matrixLayouts(int64_t m, int64_t n) {
  return {{"packed (TMA)", n, n * m, 0},
          {"rows 8 elements apart past N, entries 8 past those (TMA)", n + 8, (n + 8) * m + 8, 0},
          {"rows 3 elements past N (the threads)", n + 3, (n + 3) * m, 0},
          {"pointer 2 bytes off 16 (the threads)", n + 8, (n + 8) * m, 1},
          {"entries 3 elements apart past the rows (the threads)", n, n * m + 3, 0}};
}

void* ptr(const runtime::DeviceBuffer& d) { return reinterpret_cast<void*>(static_cast<uintptr_t>(d.ptr())); }

// The TMA-path tests' GEMM: 1000x1032x320 in two batch entries, bf16, TN, with `epilogue`, under
// cooperative or ping-pong consumers, its tile width compiled in.
Gemm tmaPathGemm(const scheduler::DeviceSpec& device, const char* epilogue, bool pingpong) {
  scheduler::MatmulProblem p =
      makeProblem(1000, 1032, 320, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16, 2);
  p.epilogue = ir::Epilogue::parse(epilogue);
  scheduler::ScheduleOverrides o;
  o.pingpong = pingpong;
  o.width_at_launch = false;
  return Gemm(scheduler::schedule(p, device, o));
}

void runOnce(const Gemm& gemm, runtime::MatmulBuffers& buffers, const EpilogueArgs& args) {
  std::optional<runtime::DeviceBuffer> workspace;
  if (gemm.workspaceSize() > 0) {
    workspace.emplace(gemm.workspaceSize());
    workspace->fill(0, nullptr);
  }
  buffers.c.fill(0xff, nullptr);
  gemm.run(ptr(buffers.a), ptr(buffers.b), ptr(buffers.c), workspace ? ptr(*workspace) : nullptr,
           workspace ? workspace->bytes() : 0, nullptr, args);
  runtime::synchronizeDevice();
}

// cuBLAS's product of `buffers`' A and B for the Gemm's problem, in fp32 before any epilogue: dense,
// batch x M x N (the problems here are packed).
std::vector<float> fp32Product(const Gemm& gemm, const runtime::MatmulBuffers& buffers) {
  scheduler::MatmulProblem product = gemm.problem();
  product.epilogue = {};
  product.out_dtype = scheduler::DType::FP32;
  runtime::DeviceBuffer prod(static_cast<size_t>(product.batch * product.m * product.n) * 4);
  runtime::CublasGemm().run(product, buffers.a.ptr(), buffers.b.ptr(), prod.ptr(), nullptr);
  runtime::synchronizeDevice();
  return runtime::decode(prod.toHost<uint8_t>(), scheduler::DType::FP32);
}

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
    const std::vector<float> acc = fp32Product(gemm, buffers);
    EpilogueArgs args;
    args.alpha = 0.75f;
    args.beta = -1.5f;
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

// sm_90 kernels store a 2-byte auxiliary output by TMA from slabs of its own where the launch's aux
// allows it (a 16-byte aligned pointer, rows and batch entries whole 16-byte granules apart), and
// from the threads where it does not: one kernel, each launch its way. Every element inside the
// problem is checked against the host reference; every element between rows and batch entries must
// keep its poison (TMA boxes clip at N).
TEST(FusedEpilogue, AuxOutputByTmaOrByTheThreadsAsItsRowsAllow) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  for (const bool pingpong : {false, true}) {
    const Gemm gemm = tmaPathGemm(device, "relu(acc + bias[n]); aux = acc + bias[n]", pingpong);
    const scheduler::MatmulProblem& p = gemm.problem();
    ASSERT_EQ(configValue(gemm.source().cuda, "AUX_BY_TMA"), "true") << gemm.source().kernel_name;
    runtime::MatmulBuffers buffers(gemm.problem(), 11);
    std::vector<float> aux_reference;
    const std::vector<float> reference = runtime::cublasReference(buffers, nullptr, &aux_reference);
    for (const MatrixLayout& l : matrixLayouts(p.m, p.n)) {
      const size_t elements = l.elements(p);
      runtime::DeviceBuffer aux(elements * 2 + 16);
      aux.fill(0xff, nullptr);  // bf16 NaN
      EpilogueArgs args = buffers.epilogue.args;
      args.aux = static_cast<char*>(ptr(aux)) + 2 * l.offset;
      args.ld_aux = l.ld;
      args.aux_batch_stride = l.batch_stride;
      runOnce(gemm, buffers, args);
      const std::vector<uint8_t> bytes = aux.toHost<uint8_t>();
      std::vector<float> inside(aux_reference.size(), 0.f);
      int64_t touched_outside = 0;
      for (int64_t e = 0; e < static_cast<int64_t>(elements); ++e) {
        const std::vector<uint8_t> element(bytes.begin() + 2 * e, bytes.begin() + 2 * e + 2);
        int64_t at;
        if (l.inside(p, e, at)) {
          inside[static_cast<size_t>(at)] = runtime::decode(element, scheduler::DType::BF16)[0];
        } else if (element[0] != 0xff || element[1] != 0xff) {
          ++touched_outside;
        }
      }
      const runtime::ErrorStats e = runtime::compareOutputs(inside, aux_reference, scheduler::DType::BF16);
      EXPECT_TRUE(e.passed) << l.what << (pingpong ? ", ping-pong" : "") << ": aux norm rel " << e.norm_rel
                            << ", non-finite " << e.non_finite;
      EXPECT_EQ(touched_outside, 0) << l.what << (pingpong ? ", ping-pong" : "")
                                    << ": elements outside the problem were written";
      const runtime::ErrorStats c =
          runtime::compareOutputs(runtime::decode(buffers.c.toHost<uint8_t>(), p.out_dtype), reference, p.out_dtype);
      EXPECT_TRUE(c.passed) << l.what << ": C norm rel " << c.norm_rel;
    }
  }
}

// The input c the same ways: loaded by TMA into slabs of its own where the launch's c allows it, read
// by the threads where it does not. C against alpha * acc + beta * c on the host, from cuBLAS's fp32
// product and c as its buffer holds it.
TEST(FusedEpilogue, InputCByTmaOrByTheThreadsAsItsRowsAllow) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  for (const bool pingpong : {false, true}) {
    const Gemm gemm = tmaPathGemm(device, "alpha * acc + beta * c", pingpong);
    const scheduler::MatmulProblem& p = gemm.problem();
    ASSERT_EQ(configValue(gemm.source().cuda, "C_IN_BY_TMA"), "true") << gemm.source().kernel_name;
    runtime::MatmulBuffers buffers(gemm.problem(), 13);
    const std::vector<float> acc = fp32Product(gemm, buffers);
    for (const MatrixLayout& l : matrixLayouts(p.m, p.n)) {
      const size_t elements = l.elements(p);
      runtime::DeviceBuffer c_in(elements * 2 + 16);
      runtime::fillRandomOnDevice(c_in, scheduler::DType::BF16, elements + 8, 21);
      runtime::synchronizeDevice();
      const std::vector<float> c_values = runtime::decode(c_in.toHost<uint8_t>(), scheduler::DType::BF16);
      EpilogueArgs args = buffers.epilogue.args;
      args.c = static_cast<char*>(ptr(c_in)) + 2 * l.offset;
      args.ldc = l.ld;
      args.c_batch_stride = l.batch_stride;
      runOnce(gemm, buffers, args);
      std::vector<float> expected(acc.size());
      for (int64_t e = 0; e < static_cast<int64_t>(elements); ++e) {
        int64_t at;
        if (l.inside(p, e, at)) {
          const auto i = static_cast<size_t>(at);
          expected[i] = args.alpha * acc[i] + args.beta * c_values[static_cast<size_t>(e)];
        }
      }
      const runtime::ErrorStats c =
          runtime::compareOutputs(runtime::decode(buffers.c.toHost<uint8_t>(), p.out_dtype), expected, p.out_dtype);
      EXPECT_TRUE(c.passed) << l.what << (pingpong ? ", ping-pong" : "") << ": C norm rel " << c.norm_rel
                            << ", non-finite " << c.non_finite;
    }
  }
}

// sm_90 slab fills read a lane's pair of bias columns in one access where the pair lies inside and
// is aligned for it, else each element: a bias vector anywhere in its buffer (a pointer off 4 bytes,
// batch entries an odd count apart, one vector for every entry), along n and along m, with C
// computed straight and transposed (the bias then runs along the kernel's other axis), N odd so that
// the last tile's pairs cross it. C against the epilogue on the host over cuBLAS's fp32 product.
TEST(FusedEpilogue, BiasVectorsAnywhereInTheirBuffers) {
  scheduler::DeviceSpec device;
  if (auto why = findSm90Device(device, "sm_90a kernels")) GTEST_SKIP() << *why;
  struct VectorLayout {
    const char* what;
    int64_t offset;       // elements past an aligned buffer
    int64_t extra_stride;  // elements between entries past the length; -1: one vector for every entry
  };
  const VectorLayout layouts[] = {{"packed", 0, 0},
                                  {"pointer 2 bytes off 4", 1, 0},
                                  {"entries an odd count apart", 0, 1},
                                  {"one vector for every entry", 0, -1}};
  for (const char* text : {"gelu_tanh(acc + bias[n])", "relu(acc + bias[m])"}) {
    for (const bool swap : {false, true}) {
      scheduler::MatmulProblem p =
          makeProblem(1000, 1031, 256, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16, 2);
      p.epilogue = ir::Epilogue::parse(text);
      scheduler::ScheduleOverrides o;
      o.swap_ab = swap;
      const Gemm gemm(scheduler::schedule(p, device, o));
      runtime::MatmulBuffers buffers(gemm.problem(), 17);
      const std::vector<float> acc = fp32Product(gemm, buffers);
      const bool along_m = p.epilogueUses(ir::EpOp::BiasM);
      const int64_t length = along_m ? p.m : p.n;
      for (const VectorLayout& l : layouts) {
        const int64_t stride = l.extra_stride < 0 ? 0 : length + l.extra_stride;
        const auto elements = static_cast<size_t>(l.offset + stride * (p.batch - 1) + length);
        runtime::DeviceBuffer bias(elements * 2 + 16);
        runtime::fillRandomOnDevice(bias, scheduler::DType::BF16, elements, 23);
        runtime::synchronizeDevice();
        const std::vector<float> values = runtime::decode(bias.toHost<uint8_t>(), scheduler::DType::BF16);
        EpilogueArgs args = buffers.epilogue.args;
        args.bias = static_cast<char*>(ptr(bias)) + 2 * l.offset;
        args.bias_batch_stride = stride;
        runOnce(gemm, buffers, args);
        std::vector<float> expected(acc.size());
        for (int64_t b = 0; b < p.batch; ++b) {
          for (int64_t m = 0; m < p.m; ++m) {
            for (int64_t n = 0; n < p.n; ++n) {
              const auto i = static_cast<size_t>((b * p.m + m) * p.n + n);
              ir::EpLeaves leaves;
              leaves.acc = acc[i];
              leaves.bias = values[static_cast<size_t>(l.offset + b * stride + (along_m ? m : n))];
              expected[i] = static_cast<float>(p.epilogue.evaluate(leaves));
            }
          }
        }
        const runtime::ErrorStats c =
            runtime::compareOutputs(runtime::decode(buffers.c.toHost<uint8_t>(), p.out_dtype), expected, p.out_dtype);
        EXPECT_TRUE(c.passed) << text << ", " << l.what << (swap ? ", C^T" : "") << " (" << gemm.source().kernel_name
                              << "): C norm rel " << c.norm_rel << ", max rel " << c.max_rel << ", non-finite "
                              << c.non_finite;
      }
    }
  }
}

TEST(FusedEpilogue, MissingOrMisplacedOperandsAreRefusedBeforeTheLaunch) {
  scheduler::DeviceSpec device;
  if (auto why = findDevice(device)) GTEST_SKIP() << *why;
  scheduler::MatmulProblem p = makeProblem(256, 256, 64, scheduler::Layout::TN, scheduler::DType::BF16, scheduler::DType::BF16);
  p.epilogue = ir::Epilogue::parse("relu(acc + bias[m]); aux = beta * c");
  const Gemm gemm(p);
  runtime::DeviceBuffer a(256 * 64 * 2), b(256 * 64 * 2), c(256 * 256 * 2), other(256 * 256 * 2);
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
