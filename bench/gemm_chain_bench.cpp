// A chain of GEMMs launched back to back on one stream, as a model's layers run: each link has its
// own operands (the chain's inputs together are larger than the L2, so every link reads its weights
// from memory), and the chain is timed whole with events after an L2 flush. Three ways in turns in
// one process: ours launched plainly, ours overlapping the kernel before
// (GemmOptions::overlap_prior_kernel: each launch starts under the previous kernel's tail), and
// cuBLAS. Every link of ours is checked against cuBLAS first, both ways. Prints the median time a
// link and its ratios. Without a GPU it says why and exits 0.
//
// Usage: bench_gemm_chain [--problem MxNxK[:LAYOUT]]... [--links N] [--turns T]
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "measure/cublas_baseline.h"
#include "measure/matmul_run.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/device.h"
#include "tilegrid/runtime/errors.h"
#include "tilegrid/runtime/gemm.h"

namespace {

namespace rt = tilegrid::runtime;
namespace sc = tilegrid::scheduler;

sc::MatmulProblem parseProblem(const std::string& text) {
  sc::MatmulProblem p;
  const size_t colon = text.find(':');
  const std::string shape = text.substr(0, colon);
  p.layout = sc::parseLayout(colon == std::string::npos ? "TN" : text.substr(colon + 1));
  char x1 = 0, x2 = 0;
  std::istringstream in(shape);
  if (!(in >> p.m >> x1 >> p.n >> x2 >> p.k) || x1 != 'x' || x2 != 'x' || !in.eof()) {
    throw CLI::ValidationError("--problem", "'" + text + "' is not MxNxK[:LAYOUT] (for example 1x4096x4096:TN)");
  }
  return p.validate();
}

// One link of the chain: its own operands, ours both ways (each with a workspace of its own) and
// cuBLAS on the same operands.
struct Link {
  rt::MatmulBuffers buffers;
  std::unique_ptr<rt::MatmulLaunch> plain, overlapped;
  Link(const sc::MatmulProblem& p, uint64_t seed) : buffers(p, seed) {
    tilegrid::GemmOptions plain_options, overlap;
    plain_options.overlap_prior_kernel = false;
    overlap.overlap_prior_kernel = true;
    plain = std::make_unique<rt::MatmulLaunch>(tilegrid::Gemm(p, plain_options), buffers);
    overlapped = std::make_unique<rt::MatmulLaunch>(tilegrid::Gemm(p, overlap), buffers);
  }
};

// Bytes a link reads and writes at least: its operands' spans.
int64_t linkBytes(const sc::MatmulProblem& p) {
  return p.spanA() * sc::bytes(p.a_dtype) + p.spanB() * sc::bytes(p.b_dtype) + p.spanC() * sc::bytes(p.out_dtype);
}

void runChain(const sc::MatmulProblem& p, int links, int turns, rt::L2Flusher& flusher, rt::CublasGemm& cublas) {
  const rt::Stream stream;
  const int64_t l2 = rt::currentDeviceSpec().l2_bytes;
  // At least `links` links, and enough that the chain's operands are twice the L2.
  const int count = static_cast<int>(std::max<int64_t>(links, (2 * l2 + linkBytes(p) - 1) / linkBytes(p)));
  std::vector<std::unique_ptr<Link>> chain;
  for (int i = 0; i < count; ++i) chain.push_back(std::make_unique<Link>(p, 2026 + static_cast<uint64_t>(i)));
  bool checked = true;
  for (const auto& link : chain) {
    const std::vector<float> reference = rt::cublasReference(link->buffers, stream.get());
    for (rt::MatmulLaunch* launch : {link->plain.get(), link->overlapped.get()}) {
      const rt::ErrorStats e = rt::checkLaunch(*launch, link->buffers, reference, stream.get());
      checked = checked && e.passed;
    }
  }
  const auto ours = [&](bool overlapped) {
    return [&, overlapped] {
      for (const auto& link : chain) (overlapped ? *link->overlapped : *link->plain)(stream.get());
    };
  };
  const std::function<void()> cublas_chain = [&] {
    for (const auto& link : chain) {
      cublas.run(p, link->buffers.a.ptr(), link->buffers.b.ptr(), link->buffers.c.ptr(), stream.get());
    }
  };
  const std::vector<std::vector<float>> ms =
      rt::timeInTurns({ours(false), ours(true), cublas_chain}, 3, rt::TurnBudget{turns, 0, 0}, flusher, stream.get());
  const auto median_us = [&](int which) {
    return rt::summarizeTimes(ms[static_cast<size_t>(which)], 0).median_ms * 1000.0 / count;
  };
  const double plain = median_us(0), overlapped = median_us(1), base = median_us(2);
  std::cout << fmt::format("{:<28} {:>5} {:>10.2f} {:>12.2f} {:>9.2f} {:>16.3f} {:>14.3f} {:>14.3f}  {}\n", p.toString().substr(0, 28),
                           count, plain, overlapped, base, plain / overlapped, base / plain, base / overlapped,
                           checked ? "ok" : "FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Back-to-back GEMM chains: ours plain, ours overlapping the kernel before, cuBLAS"};
  std::vector<std::string> problems = {"1x4096x4096:TN", "16x4096x4096:TN", "1x14336x4096:TN", "64x4096x4096:TN",
                                       "512x512x512:TN",  "1024x1024x1024:TN", "2048x2048x2048:TN", "4096x4096x4096:TN"};
  int links = 16, turns = 200;
  app.add_option("--problem", problems, "MxNxK[:LAYOUT], repeatable (default: decode, small and square problems)");
  app.add_option("--links", links, "GEMMs a chain, at least (more where needed to pass twice the L2)")->check(CLI::Range(1, 4096));
  app.add_option("--turns", turns, "timed turns")->check(CLI::Range(1, 100000));
  CLI11_PARSE(app, argc, argv);
  std::vector<sc::MatmulProblem> parsed;
  try {
    for (const std::string& text : problems) parsed.push_back(parseProblem(text));
  } catch (const std::exception& e) {
    std::cerr << "bench_gemm_chain: " << e.what() << "\n";
    return 2;
  }
  try {
    rt::currentDeviceSpec();
  } catch (const rt::NoDeviceError& e) {
    std::cout << "gemm chain benchmarks skipped: " << e.what() << "\n";
    return 0;
  }
  rt::L2Flusher flusher(rt::currentDeviceSpec().l2_bytes);
  rt::CublasGemm cublas;
  std::cout << fmt::format("{}, medians of {} turns, us a link\n", rt::currentDeviceSpec().toString(), turns);
  std::cout << fmt::format("{:<28} {:>5} {:>10} {:>12} {:>9} {:>16} {:>14} {:>14}  {}\n", "problem", "links", "ours",
                           "overlapped", "cuBLAS", "ours/overlapped", "cuBLAS/ours", "cuBLAS/overl.", "check");
  for (const sc::MatmulProblem& p : parsed) runChain(p, links, turns, flusher, cublas);
  return 0;
}
