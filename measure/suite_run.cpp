#include "measure/suite_run.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <optional>

#include "measure/cublas_baseline.h"
#include "tilegrid/codegen/emit.h"
#include "tilegrid/codegen/emit_common.h"
#include "measure/cublaslt_baseline.h"
#include "measure/matmul_run.h"
#include "measure/read_inputs.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/driver.h"
#include "tilegrid/runtime/host_dtype.h"
#include "tilegrid/runtime/kernel_cache.h"

namespace tilegrid::runtime {
namespace {

nlohmann::json timing(const TimingStats& t) {
  return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"tflops", t.tflops}};
}

nlohmann::json check(const ErrorStats& e) {
  return {{"passed", e.passed}, {"norm_rel", e.norm_rel}, {"max_rel", e.max_rel}, {"non_finite", e.non_finite},
          {"gap_writes", e.gap_writes}};
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  char text[32] = {};
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

// cuBLAS on a large GEMM for `seconds`: the clocks climb to where the timed runs will hold them.
void warmClocks(double seconds, CUstream stream) {
  if (seconds <= 0) return;
  scheduler::MatmulProblem p;
  p.m = p.n = p.k = 4096;
  p.validate();
  MatmulBuffers buffers(p, 1);
  CublasGemm cublas;
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    for (int i = 0; i < 20; ++i) cublas.run(p, buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream);
    TG_CU(cuStreamSynchronize, stream);
  }
}

// The schedule a case runs: the default one of Gemm(problem), or the case's overrides.
scheduler::MatmulSchedule caseSchedule(const SuiteCase& c, const SuiteRunOptions& options, bool specialize_shape) {
  scheduler::MatmulProblem p = c.problem;
  p.validate();
  scheduler::ScheduleOverrides overrides = c.config == "default" ? scheduler::ScheduleOverrides{} : c.overrides;
  overrides.arch = options.arch;
  if (specialize_shape) overrides.specialize_shape = true;
  return scheduler::schedule(p, currentDeviceSpec(), overrides);
}

// A dot kernel has no counterpart with its shape compiled in (a compiled-in shape runs tiled).
bool timesSpecialized(const SuiteCase& c, const SuiteRunOptions& options, const scheduler::MatmulSchedule& s) {
  return options.versus_specialized && c.config == "default" && s.params.shapeAtLaunch() && !s.params.dot;
}

// Every kernel the suite will time, compiled on all cores before the first case runs (NVRTC takes
// seconds a kernel; one after another they would dominate a suite of small problems). A case whose
// schedule or compile fails is left to fail again, with its message, when it runs.
void compileAhead(const std::vector<SuiteCase>& cases, const SuiteRunOptions& options) {
  std::vector<codegen::KernelSource> sources;
  for (const SuiteCase& c : cases) {
    try {
      const scheduler::MatmulSchedule s = caseSchedule(c, options, false);
      sources.push_back(codegen::emit(s));
      if (timesSpecialized(c, options, s)) sources.push_back(codegen::emit(caseSchedule(c, options, true)));
    } catch (const std::exception&) {
    }
  }
  std::vector<const codegen::KernelSource*> pointers;
  for (const codegen::KernelSource& s : sources) pointers.push_back(&s);
  try {
    KernelCache::global().getAll(pointers, currentDeviceSpec().arch());
  } catch (const std::exception&) {
  }
}

// `held`: the buffers of the case before, reused where this case has the same problem (below).
nlohmann::json runCase(const SuiteCase& c, const SuiteRunOptions& options, L2Flusher& flusher, Stream& stream,
                       std::optional<MatmulBuffers>& held) {
  const scheduler::MatmulProblem& p = c.problem;
  nlohmann::json r{{"name", c.name},   {"category", c.category}, {"problem", p.toString()}, {"flop", p.flops()},
                   {"m", p.m},         {"n", p.n},               {"k", p.k},                {"batch", p.batch},
                   {"layout", scheduler::toString(p.layout)},    {"config", c.config}};
  // Timed alone behind an L2 flush, like the baselines: no launch overlaps the flush's tail.
  const Gemm gemm(caseSchedule(c, options, false), false);
  r["kernel"] = gemm.source().kernel_name;
  r["launch"] = codegen::launchName(gemm.schedule());
  // A, B, C, cuBLAS's reference C, our workspace and cuBLASLt's.
  const uint64_t c_bytes = static_cast<uint64_t>(p.spanC()) * static_cast<uint64_t>(scheduler::bytes(p.out_dtype));
  const uint64_t a_bytes = static_cast<uint64_t>(p.spanA()) * static_cast<uint64_t>(scheduler::bytes(p.a_dtype));
  const uint64_t b_bytes = static_cast<uint64_t>(p.spanB()) * static_cast<uint64_t>(scheduler::bytes(p.b_dtype));
  const uint64_t in_bytes = a_bytes + b_bytes;
  // A suite's configurations of one problem follow each other and run over the same buffers, so that
  // they are timed on the same memory: with buffers of their own, a small memory-bound kernel's time
  // moved by a few percent with its place among them (docs/findings.md).
  const bool reuse = held && held->problem == p;
  if (!reuse) held.reset();
  checkFitsInDeviceMemory((reuse ? 0 : in_bytes + c_bytes) + c_bytes + gemm.workspaceSize() + (uint64_t{32} << 20),
                          "case " + c.name);
  if (!reuse) held.emplace(p, options.seed);
  MatmulBuffers& buffers = *held;
  MatmulLaunch ours(gemm, buffers);
  CublasGemm cublas;
  // With a fused epilogue: the reference applies it on the host (and computes its auxiliary output),
  // cuBLAS computes the plain product (the bound a fused epilogue approaches), and cuBLASLt runs its
  // own fused epilogue where its menu has this one, else not at all.
  const bool plain = p.epilogue.isIdentity();
  if (!plain) r["epilogue"] = p.epilogue.toString();
  // 8-bit inputs: cuBLAS's GEMM takes none; cuBLASLt's FP8 GEMM is the baseline, where it has an
  // algorithm for these types and scales.
  const bool fp8 = scheduler::isFp8(p.a_dtype);
  std::optional<CublasLtGemm> lt;
  if (plain || CublasLtGemm::epilogueFor(p)) {
    try {
      lt.emplace(p, 8, size_t{32} << 20, buffers.epilogue.args);
    } catch (const std::runtime_error& e) {
      if (!fp8) throw;
      r["cublaslt_refused"] = e.what();
    }
  }
  std::vector<float> aux_reference;
  const std::vector<float> reference = cublasReference(buffers, stream.get(), &aux_reference);
  r["checks"]["ours"] = check(checkLaunch(ours, buffers, reference, stream.get(), aux_reference));
  if (lt) {
    const int candidates = lt->chooseFastest(buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream.get());
    r["cublaslt_choice"] = lt->chosen();
    r["cublaslt_candidates"] = candidates;
    buffers.c.fill(0xff, stream.get());
    lt->run(buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream.get());
    stream.synchronize();
    r["checks"]["cublaslt"] =
        check(compareOutputs(denseC(p, decode(buffers.c.toHost<uint8_t>(), p.out_dtype)), reference, p.out_dtype,
                             tolerance(p)));
  }
  std::vector<std::function<void()>> launches = {
      [&] { ours(stream.get()); },
      [&] { readInputs(buffers.a.ptr(), a_bytes, buffers.b.ptr(), b_bytes, stream.get()); }};
  if (!fp8) launches.push_back([&] { cublas.run(p, buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream.get()); });
  const size_t lt_at = launches.size();
  if (lt) launches.push_back([&] { lt->run(buffers.a.ptr(), buffers.b.ptr(), buffers.c.ptr(), stream.get()); });
  // Ours with the shape compiled in, a fifth contender where asked.
  std::optional<Gemm> specialized;
  std::optional<MatmulLaunch> specialized_launch;
  if (timesSpecialized(c, options, gemm.schedule())) {
    specialized.emplace(caseSchedule(c, options, true), false);
    checkFitsInDeviceMemory(c_bytes + gemm.workspaceSize() + specialized->workspaceSize() + (uint64_t{32} << 20),
                            "case " + c.name);
    specialized_launch.emplace(*specialized, buffers);
    r["checks"]["specialized"] = check(checkLaunch(*specialized_launch, buffers, reference, stream.get(), aux_reference));
    launches.push_back([&] { (*specialized_launch)(stream.get()); });
  }
  std::vector<std::vector<float>> ms = timeInTurns(
      launches, options.warmup, TurnBudget{options.turns, options.seconds, options.max_turns}, flusher, stream.get());
  r["turns"] = ms[0].size();
  r["ours"] = timing(summarizeTimes(std::move(ms[0]), p.flops()));
  // The memory-speed reference: one plain read of A and B (its "tflops" is the GEMM's flop over it).
  r["read_inputs"] = timing(summarizeTimes(std::move(ms[1]), p.flops()));
  if (!fp8) r["cublas"] = timing(summarizeTimes(std::move(ms[2]), p.flops()));
  if (lt) r["cublaslt"] = timing(summarizeTimes(std::move(ms[lt_at]), p.flops()));
  if (specialized) {
    r["specialized"] = timing(summarizeTimes(std::move(ms.back()), p.flops()));
    r["specialized"]["kernel"] = specialized->source().kernel_name;
  }
  r["input_bytes"] = a_bytes + b_bytes;
  return r;
}

}  // namespace

nlohmann::json runSuite(const std::vector<SuiteCase>& cases, const SuiteRunOptions& options) {
  nlohmann::json device = nlohmann::json::object();
  for (const auto& [key, value] : describeDevice()) device[key] = value;
  nlohmann::json results{{"device", device},
                         {"date", utcNow()},
                         {"method",
                          {{"warmup", options.warmup},
                           {"turns", options.turns},
                           {"seconds", options.seconds},
                           {"max_turns", options.max_turns},
                           {"clock_warmup_seconds", options.clock_warmup_seconds},
                           {"arch", options.arch ? scheduler::toString(*options.arch) : "the scheduler's"},
                           {"versus_specialized", options.versus_specialized},
                           {"l2_flush", toString(options.flush)},
                           {"timing", "each launch alone between CUDA events after an L2 flush, contenders in turns; "
                                      "medians"}}},
                         {"cases", nlohmann::json::array()}};
  Stream stream;
  L2Flusher flusher(currentDeviceSpec().l2_bytes, options.flush);
  compileAhead(cases, options);
  warmClocks(options.clock_warmup_seconds, stream.get());
  std::optional<MatmulBuffers> buffers;
  for (const SuiteCase& c : cases) {
    nlohmann::json r;
    try {
      r = runCase(c, options, flusher, stream, buffers);
    } catch (const std::exception& e) {
      r = {{"name", c.name}, {"category", c.category}, {"problem", c.problem.toString()}, {"error", e.what()}};
    }
    if (options.progress) options.progress(r);
    results["cases"].push_back(std::move(r));
  }
  return results;
}

}  // namespace tilegrid::runtime
