#include "measure/matmul_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "tilegrid/codegen/problem_args.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/builtin_kernels.h"
#include "measure/cublas_baseline.h"
#include "measure/cublaslt_baseline.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"
#include "tilegrid/runtime/launcher.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/tensor_map.h"

namespace tilegrid::runtime {

double tolerance(scheduler::DType out) {
  switch (out) {
    case scheduler::DType::BF16: return 1e-2;  // 8 mantissa bits: ~2e-3 per element
    case scheduler::DType::FP16: return 2e-3;  // 11 bits
    case scheduler::DType::FP32: return 1e-4;  // only the summation order differs
    case scheduler::DType::E4M3:
    case scheduler::DType::E5M2: break;  // inputs only
  }
  return 0;
}

double tolerance(const scheduler::MatmulProblem& p, scheduler::DType out) {
  const double rounding = tolerance(out);
  if (!scheduler::isFp8(p.a_dtype)) return rounding;
  return std::max(rounding, std::ldexp(std::sqrt(static_cast<double>(p.k)), -14));
}

ErrorStats compareOutputs(const std::vector<float>& ours, const std::vector<float>& ref, scheduler::DType out,
                          double bound) {
  TG_USER_CHECK(ours.size() == ref.size()) << "comparing " << ours.size() << " elements with " << ref.size();
  ErrorStats e;
  double diff2 = 0, ref2 = 0, ref_max = 0;
  for (size_t i = 0; i < ours.size(); ++i) {
    if (!std::isfinite(ours[i])) {
      ++e.non_finite;
      continue;
    }
    const double d = static_cast<double>(ours[i]) - static_cast<double>(ref[i]);
    diff2 += d * d;
    ref2 += static_cast<double>(ref[i]) * ref[i];
    e.max_abs = std::max(e.max_abs, std::abs(d));
    ref_max = std::max(ref_max, std::abs(static_cast<double>(ref[i])));
  }
  e.max_rel = ref_max > 0 ? e.max_abs / ref_max : e.max_abs;
  e.norm_rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  e.tolerance = bound > 0 ? bound : tolerance(out);
  e.passed = e.non_finite == 0 && e.norm_rel <= e.tolerance && e.max_rel <= 8 * e.tolerance;
  return e;
}

std::vector<float> referenceGemm(const scheduler::MatmulProblem& p, const std::vector<float>& a,
                                 const std::vector<float>& b) {
  TG_USER_CHECK(static_cast<int64_t>(a.size()) >= p.spanA() && static_cast<int64_t>(b.size()) >= p.spanB())
      << "the reference GEMM of " << p.toString() << " needs " << p.spanA() << " elements of A and " << p.spanB()
      << " of B, got " << a.size() << " and " << b.size();
  const bool a_k = scheduler::majorOfA(p.layout) == scheduler::Major::K;
  const bool b_k = scheduler::majorOfB(p.layout) == scheduler::Major::K;
  const int64_t lda = p.leadingDimA(), ldb = p.leadingDimB();
  std::vector<float> c(static_cast<size_t>(p.batch * p.m * p.n));
  const auto row = [&](int64_t batch, int64_t m) {
    const float* A = a.data() + batch * p.batchStrideA();
    const float* B = b.data() + batch * p.batchStrideB();
    for (int64_t n = 0; n < p.n; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < p.k; ++k) {
        const double x = A[a_k ? m * lda + k : k * lda + m];
        const double y = B[b_k ? n * ldb + k : k * ldb + n];
        sum += x * y;
      }
      c[static_cast<size_t>((batch * p.m + m) * p.n + n)] = static_cast<float>(sum);
    }
  };
  // Rows of C on every core: each element is summed the same way whichever thread takes it.
  const int64_t rows = p.batch * p.m;
  std::atomic<int64_t> next{0};
  const auto worker = [&] {
    for (int64_t r; (r = next.fetch_add(1)) < rows;) row(r / p.m, r % p.m);
  };
  const int64_t threads = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), rows);
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  return c;
}

std::vector<float> denseC(const scheduler::MatmulProblem& p, const std::vector<float>& span) {
  TG_INTERNAL_CHECK(static_cast<int64_t>(span.size()) >= p.spanC()) << "C holds " << span.size() << " elements, not "
                                                                     << p.spanC();
  std::vector<float> c(static_cast<size_t>(p.batch * p.m * p.n));
  for (int64_t batch = 0; batch < p.batch; ++batch)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t n = 0; n < p.n; ++n)
        c[static_cast<size_t>((batch * p.m + m) * p.n + n)] =
            span[static_cast<size_t>(batch * p.batchStrideC() + m * p.leadingDimC() + n)];
  return c;
}

namespace {

// Elements of C's span outside the matrix (the gaps between rows and batch entries) whose bytes are
// not all `poison`: writes that went where they must not. `first` gets the first one's offset.
int64_t gapWrites(const scheduler::MatmulProblem& p, const std::vector<uint8_t>& bytes, uint8_t poison, int64_t& first) {
  const int64_t esize = scheduler::bytes(p.out_dtype);
  std::vector<bool> inside(static_cast<size_t>(p.spanC()), false);
  for (int64_t batch = 0; batch < p.batch; ++batch)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t n = 0; n < p.n; ++n) inside[static_cast<size_t>(batch * p.batchStrideC() + m * p.leadingDimC() + n)] = true;
  int64_t writes = 0;
  first = -1;
  for (int64_t e = 0; e < p.spanC(); ++e) {
    if (inside[static_cast<size_t>(e)]) continue;
    for (int64_t byte = 0; byte < esize; ++byte) {
      if (bytes[static_cast<size_t>(e * esize + byte)] != poison) {
        if (writes++ == 0) first = e;
        break;
      }
    }
  }
  return writes;
}

// Elements from the first of an operand to one past its last, gaps included.
size_t elements(const scheduler::MatmulProblem& p, char which) {
  return static_cast<size_t>(which == 'a' ? p.spanA() : which == 'b' ? p.spanB() : p.spanC());
}

}  // namespace

TimingStats summarizeTimes(std::vector<float> ms, double flops) {
  TG_USER_CHECK(!ms.empty()) << "no timed runs to summarize";
  std::sort(ms.begin(), ms.end());
  TimingStats t;
  t.median_ms = ms[ms.size() / 2];
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.tflops = flops / (t.median_ms * 1e-3) / 1e12;
  return t;
}

std::vector<std::vector<float>> timeInTurns(const std::vector<std::function<void()>>& launches, int warmup,
                                            const TurnBudget& budget, L2Flusher& flusher, CUstream stream,
                                            const std::function<void(int)>& after_turn) {
  const size_t n = launches.size();
  for (const auto& launch : launches)
    for (int i = 0; i < warmup; ++i) launch();
  EventTimer timer;
  std::vector<std::vector<float>> ms(n);
  const int most = std::max(budget.turns, budget.max_turns);
  const auto start = std::chrono::steady_clock::now();
  const auto more = [&](int turn) {
    if (turn < budget.turns) return true;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return turn < most && elapsed < budget.seconds;
  };
  for (int turn = 0; more(turn); ++turn) {
    for (size_t j = 0; j < n; ++j) {
      const size_t which = (static_cast<size_t>(turn) + j) % n;
      flusher.flush(stream);
      timer.start(stream);
      launches[which]();
      timer.stop(stream);
      ms[which].push_back(timer.elapsedMs());
    }
    if (after_turn) after_turn(turn);
  }
  return ms;
}

MatmulBuffers::MatmulBuffers(const scheduler::MatmulProblem& p, uint64_t seed)
    : problem(p),
      a(elements(p, 'a') * static_cast<size_t>(scheduler::bytes(p.a_dtype))),
      b(elements(p, 'b') * static_cast<size_t>(scheduler::bytes(p.b_dtype))),
      c(elements(p, 'c') * static_cast<size_t>(scheduler::bytes(p.out_dtype))),
      epilogue(p, seed) {
  fillRandomOnDevice(a, p.a_dtype, elements(p, 'a'), seed);
  fillRandomOnDevice(b, p.b_dtype, elements(p, 'b'), seed + 1);
  // The fills run on the legacy default stream, which does not order non-blocking streams: without
  // this, a kernel launched next on one could read inputs still being written (seen: a large GEMM
  // checked against cuBLAS failed 11 times in 12).
  synchronizeDevice();
}

MatmulLaunch::MatmulLaunch(Gemm gemm, MatmulBuffers& buffers)
    : MatmulLaunch(std::move(gemm), MatmulOperands{buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), buffers.epilogue.args}) {
  TG_USER_CHECK(buffers.problem == gemm_.problem()) << "buffers for " << buffers.problem.toString()
                                                    << " cannot run the Gemm for " << gemm_.problem().toString();
}

MatmulLaunch::MatmulLaunch(Gemm gemm, const MatmulOperands& operands) : gemm_(std::move(gemm)), operands_(operands) {
  const auto pointer = [](CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); };
  checkOperands(gemm_.problem(), pointer(operands.a), pointer(operands.b), pointer(operands.c));
  if (gemm_.problem().takesEpilogueArgs()) checkEpilogueArgs(gemm_.problem(), operands.epilogue);
  if (gemm_.workspaceSize() > 0) {
    workspace_.emplace(gemm_.workspaceSize());
    workspace_->fill(0, nullptr);
    synchronizeDevice();
  }
}

void MatmulLaunch::operator()(CUstream stream) {
  const auto pointer = [](CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); };
  gemm_.run(pointer(operands_.a), pointer(operands_.b), pointer(operands_.c),
            workspace_ ? pointer(workspace_->ptr()) : nullptr, workspace_ ? workspace_->bytes() : 0, stream,
            operands_.epilogue);
}

namespace {

// A * B in fp64 on the host from the decoded inputs, their block scales applied.
std::vector<float> hostReferenceProduct(const MatmulBuffers& buffers) {
  const scheduler::MatmulProblem& p = buffers.problem;
  std::vector<float> a = decode(buffers.a.toHost<uint8_t>(), p.a_dtype);
  std::vector<float> b = decode(buffers.b.toHost<uint8_t>(), p.b_dtype);
  if (p.scale == scheduler::ScaleMode::Block128) applyBlockScales(p, buffers.epilogue, a, b);
  return referenceGemm(p, a, b);
}

}  // namespace

std::vector<float> cublasReference(const MatmulBuffers& buffers, CUstream stream, std::vector<float>* aux) {
  const scheduler::MatmulProblem& p = buffers.problem;
  if (scheduler::isFp8(p.a_dtype)) {
    // cuBLAS's GEMM takes no 8-bit floats, but every e4m3 and e5m2 value is a bf16 value: its bf16
    // product of exact copies, in fp32, then the epilogue (the scales with it) on the host. Block
    // scales go on the copies (fp32 then: a scaled value needs more bits than bf16 has).
    const bool blocks = p.scale == scheduler::ScaleMode::Block128;
    const scheduler::DType copies = blocks ? scheduler::DType::FP32 : scheduler::DType::BF16;
    std::vector<float> a_values = decode(buffers.a.toHost<uint8_t>(), p.a_dtype);
    std::vector<float> b_values = decode(buffers.b.toHost<uint8_t>(), p.b_dtype);
    if (blocks) applyBlockScales(p, buffers.epilogue, a_values, b_values);
    scheduler::MatmulProblem wide = p;
    wide.a_dtype = wide.b_dtype = copies;
    wide.out_dtype = scheduler::DType::FP32;
    wide.scale = scheduler::ScaleMode::None;
    wide.epilogue = {};
    // (Described, not validated: fp32 inputs are cuBLAS's to take, not a tilegrid problem.)
    const auto upload = [&](const std::vector<float>& values) {
      const std::vector<uint8_t> bytes = encode(values, copies);
      DeviceBuffer out(bytes.size());
      out.copyFromHost(bytes.data(), bytes.size());
      return out;
    };
    const DeviceBuffer a = upload(a_values), b = upload(b_values);
    DeviceBuffer c_ref(static_cast<size_t>(wide.spanC()) * 4);
    CublasGemm().run(wide, a.ptr(), b.ptr(), c_ref.ptr(), stream);
    synchronizeDevice();
    return applyEpilogueOnHost(p, denseC(wide, decode(c_ref.toHost<uint8_t>(), wide.out_dtype)), buffers.epilogue, aux);
  }
  if (p.epilogue.isIdentity()) {
    DeviceBuffer c_ref(buffers.c.bytes());
    CublasGemm().run(p, buffers.a.ptr(), buffers.b.ptr(), c_ref.ptr(), stream);
    synchronizeDevice();
    return denseC(p, decode(c_ref.toHost<uint8_t>(), p.out_dtype));
  }
  // The epilogue reads the product before it is rounded to C's type: cuBLAS writes it in fp32.
  scheduler::MatmulProblem product = p;
  product.epilogue = {};
  product.out_dtype = scheduler::DType::FP32;
  DeviceBuffer c_ref(static_cast<size_t>(p.spanC()) * 4);
  CublasGemm().run(product, buffers.a.ptr(), buffers.b.ptr(), c_ref.ptr(), stream);
  synchronizeDevice();
  return applyEpilogueOnHost(p, denseC(product, decode(c_ref.toHost<uint8_t>(), product.out_dtype)), buffers.epilogue,
                             aux);
}

ErrorStats checkLaunch(MatmulLaunch& launch, MatmulBuffers& buffers, const std::vector<float>& reference,
                       CUstream stream, const std::vector<float>& aux_reference) {
  constexpr uint8_t kPoison = 0xff;  // NaN in every output dtype
  buffers.c.fill(kPoison, stream);
  if (buffers.epilogue.aux) buffers.epilogue.aux->fill(kPoison, stream);
  launch(stream);
  synchronizeDevice();
  const std::vector<uint8_t> bytes = buffers.c.toHost<uint8_t>();
  const scheduler::MatmulProblem& p = buffers.problem;
  ErrorStats e = compareOutputs(denseC(p, decode(bytes, p.out_dtype)), reference, p.out_dtype, tolerance(p));
  e.gap_writes = gapWrites(p, bytes, kPoison, e.first_gap_write);
  e.passed = e.passed && e.gap_writes == 0;
  if (buffers.epilogue.aux) {
    const scheduler::DType aux_type = p.aux_dtype.value_or(p.out_dtype);
    // The aux output comes from the same accumulator as C, so it gets the same allowance for it.
    const ErrorStats aux = compareOutputs(auxOutput(p, buffers.epilogue), aux_reference, aux_type, tolerance(p, aux_type));
    e.aux_norm_rel = aux.norm_rel;
    e.non_finite += aux.non_finite;
    e.passed = e.passed && aux.passed;
  }
  return e;
}

RunResult runMatmul(const scheduler::MatmulSchedule& schedule, const codegen::KernelSource& source,
                    const RunOptions& options) {
  const scheduler::MatmulProblem& p = schedule.problem;
  RunResult result;
  result.kernel_name = source.kernel_name;
  // SASS does not run across major architectures: an sm_80-family kernel is compiled for the
  // device's own target (sm_90a on Hopper), which runs its mma.sync/ldmatrix/cp.async code.
  // A, B and C, a reference C, and the padded copies and workspace the kernel asks for.
  uint64_t bytes = 0;
  for (const char which : {'a', 'b', 'c', 'c'}) {
    bytes += elements(p, which) * static_cast<uint64_t>(scheduler::bytes(which == 'c' ? p.out_dtype : p.a_dtype));
  }
  for (const codegen::KernelArg& arg : source.args) {
    if (arg.padded) bytes += arg.padded->rows * arg.padded->dst_pitch;
    bytes += arg.workspace_bytes;
  }
  checkFitsInDeviceMemory(bytes, "running " + p.toString());
  MatmulBuffers buffers(p, options.seed);
  // Each launch is timed alone behind an L2 flush, as cuBLAS's are: none starts under the flush's tail
  // (GemmOptions::overlap_prior_kernel; bench_gemm_chain times launches back to back).
  MatmulLaunch launch(Gemm(schedule, false), buffers);
  // Alternatives: each its own kernel over the same buffers.
  std::vector<std::unique_ptr<MatmulLaunch>> others;
  for (const Alternative& alt : options.alternatives) {
    TG_USER_CHECK(alt.schedule && alt.source && alt.schedule->problem == p)
        << "an alternative kernel must be scheduled for the same problem, " << p.toString();
    others.push_back(std::make_unique<MatmulLaunch>(Gemm(*alt.schedule, false), buffers));
    result.alternatives.push_back({alt.source->kernel_name, {}, {}});
  }
  Stream stream;
  std::unique_ptr<CublasGemm> cublas;
  // The reference (and the epilogue's aux reference), kept for cuBLASLt's fused epilogue's check below.
  std::vector<float> reference, aux;
  if (options.check) {
    reference =
        options.reference == Reference::Cublas
            ? cublasReference(buffers, stream.get(), &aux)
            : applyEpilogueOnHost(p, hostReferenceProduct(buffers), buffers.epilogue, &aux);
    result.errors = checkLaunch(launch, buffers, reference, stream.get(), aux);
    for (size_t i = 0; i < others.size(); ++i) {
      result.alternatives[i].errors = checkLaunch(*others[i], buffers, reference, stream.get(), aux);
    }
  }
  // With an epilogue: cuBLASLt's matching fused epilogue, checked like ours (it writes its own C and
  // aux), and the unfused pair's pointwise kernel. With 8-bit inputs cuBLASLt is the only baseline
  // (cuBLAS's GEMM takes none): its FP8 GEMM with the same scales.
  const bool fp8 = scheduler::isFp8(p.a_dtype);
  const bool with_cublaslt = !p.epilogue.isIdentity() || fp8;
  std::unique_ptr<CublasLtGemm> lt;
  std::optional<DeviceBuffer> lt_c;
  std::unique_ptr<PointwiseEpilogue> pointwise;
  if (with_cublaslt && options.time_cublas) {
    if (!fp8) pointwise = std::make_unique<PointwiseEpilogue>(p);
    result.cublaslt_epilogue = CublasLtGemm::epilogueFor(p);
    if (result.cublaslt_epilogue) {
      try {
        lt = std::make_unique<CublasLtGemm>(p, 8, size_t{32} << 20, buffers.epilogue.args);
      } catch (const std::runtime_error& e) {
        result.cublaslt_refused = e.what();
      }
    }
    if (lt) {
      lt_c.emplace(buffers.c.bytes());
      lt->chooseFastest(buffers.a.ptr(), buffers.b.ptr(), lt_c->ptr(), stream.get());
      if (options.check) {
        lt->run(buffers.a.ptr(), buffers.b.ptr(), lt_c->ptr(), stream.get());
        synchronizeDevice();
        ErrorStats e = compareOutputs(denseC(p, decode(lt_c->toHost<uint8_t>(), p.out_dtype)), reference, p.out_dtype,
                                      tolerance(p));
        if (buffers.epilogue.aux) {
          e.aux_norm_rel = compareOutputs(auxOutput(p, buffers.epilogue), aux, *p.aux_dtype).norm_rel;
        }
        result.cublaslt_errors = e;
      }
    }
  }
  if (options.iterations > 0) {
    L2Flusher flusher(currentDeviceSpec().l2_bytes, options.flush);
    std::vector<std::function<void()>> launches = {[&] { launch(stream.get()); }};
    for (auto& other : others) launches.emplace_back([&stream, o = other.get()] { (*o)(stream.get()); });
    // cuBLAS computes the plain product (C = A * B): alone, the bound for a fused epilogue.
    scheduler::MatmulProblem product = p;
    product.epilogue = {};
    if (options.time_cublas && !fp8) {
      if (!cublas) cublas = std::make_unique<CublasGemm>();
      launches.emplace_back([&] { cublas->run(product, buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream.get()); });
    }
    const size_t pair_at = launches.size();
    if (pointwise) {
      launches.emplace_back([&] {
        cublas->run(product, buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream.get());
        (*pointwise)(buffers.c.ptr(), buffers.epilogue.args, stream.get());
      });
    }
    if (lt) launches.emplace_back([&] { lt->run(buffers.a.ptr(), buffers.b.ptr(), lt_c->ptr(), stream.get()); });
    // Ours, the alternatives and the baselines in turns: timed one block after the other, a later
    // block ran on a card already warmed and power-limited by the earlier ones.
    std::vector<std::vector<float>> ms = timeInTurns(launches, options.warmup, TurnBudget{options.iterations}, flusher, stream.get());
    result.ours = summarizeTimes(std::move(ms[0]), p.flops());
    for (size_t i = 0; i < others.size(); ++i) result.alternatives[i].time = summarizeTimes(std::move(ms[1 + i]), p.flops());
    if (options.time_cublas && !fp8) result.cublas = summarizeTimes(std::move(ms[pair_at - 1]), p.flops());
    if (pointwise) result.unfused_pair = summarizeTimes(std::move(ms[pair_at]), p.flops());
    if (lt) result.cublaslt_fused = summarizeTimes(std::move(ms.back()), p.flops());
  }
  return result;
}

}  // namespace tilegrid::runtime
