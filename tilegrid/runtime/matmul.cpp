// tilegrid::matmul: the one-call form of Gemm, over a process-wide cache of Gemms and workspaces.
#include <cuda.h>

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <list>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/gemm.h"

namespace tilegrid {
namespace {

// Gemms kept: each holds its schedule and generated source (tens of KB); kernels themselves stay
// loaded once per configuration whatever is evicted here.
constexpr size_t kMaxCachedGemms = 256;

std::string cacheKey(const MatmulProblem& p, const GemmOptions& o) {
  return fmt::format("{}x{}x{} b{} {}{}{} {} al{},{},{} ld{},{},{} st{},{},{} arch{} spec{}", p.m, p.n, p.k, p.batch,
                     scheduler::toString(p.a_dtype), scheduler::toString(p.b_dtype), scheduler::toString(p.out_dtype),
                     scheduler::toString(p.layout), p.align_a, p.align_b, p.align_c, p.lda, p.ldb, p.ldc, p.stride_a,
                     p.stride_b, p.stride_c, o.arch ? static_cast<int>(*o.arch) : -1, o.specialize_shape);
}

// Gemms by problem, least recently used first out. Concurrent requests for one key build it once:
// the others wait on its future.
class GemmCache {
 public:
  Gemm get(const MatmulProblem& problem, const GemmOptions& options) {
    MatmulProblem validated = problem;
    validated.validate();
    const std::string key = cacheKey(validated, options);
    std::shared_future<Gemm> future;
    std::promise<Gemm> promise;
    bool build = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end()) {
        order_.splice(order_.begin(), order_, it->second.place);
        future = it->second.gemm;
      } else {
        build = true;
        future = promise.get_future().share();
        order_.push_front(key);
        entries_.emplace(key, Entry{future, order_.begin()});
        if (entries_.size() > kMaxCachedGemms) {
          entries_.erase(order_.back());
          order_.pop_back();
        }
      }
    }
    if (build) {
      try {
        promise.set_value(Gemm(validated, options));
      } catch (...) {
        // A problem that fails fails for every caller; it is not kept.
        promise.set_exception(std::current_exception());
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = entries_.find(key);
        if (it != entries_.end()) {
          order_.erase(it->second.place);
          entries_.erase(it);
        }
      }
    }
    return future.get();
  }

 private:
  struct Entry {
    std::shared_future<Gemm> gemm;
    std::list<std::string>::iterator place;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> order_;
};

// A zeroed workspace per stream, grown as needed. Launches on one stream run in order, so they can
// share it; the per-thread default stream is a different stream in every thread. A workspace that
// is outgrown stays allocated (a launch queued before may still use it).
class WorkspacePool {
 public:
  std::pair<void*, size_t> get(CUstream stream, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::thread::id thread = stream == CU_STREAM_PER_THREAD ? std::this_thread::get_id() : std::thread::id{};
    runtime::DeviceBuffer& buffer = buffers_[{stream, thread}];
    if (buffer.bytes() < bytes) {
      // At least doubled, so that a stream outgrows its workspace a few times at most.
      const size_t grown = std::max(bytes, 2 * buffer.bytes());
      if (buffer.bytes() > 0) retired_.push_back(std::move(buffer));
      buffer = runtime::DeviceBuffer(grown);
      buffer.fill(0, stream);
    }
    return {reinterpret_cast<void*>(static_cast<uintptr_t>(buffer.ptr())), buffer.bytes()};
  }

 private:
  struct KeyHash {
    size_t operator()(const std::pair<CUstream, std::thread::id>& k) const {
      return std::hash<CUstream>()(k.first) ^ std::hash<std::thread::id>()(k.second);
    }
  };
  std::mutex mutex_;
  std::unordered_map<std::pair<CUstream, std::thread::id>, runtime::DeviceBuffer, KeyHash> buffers_;
  std::vector<runtime::DeviceBuffer> retired_;
};

}  // namespace

void matmul(const MatmulProblem& problem, const void* a, const void* b, void* c, CUstream_st* stream,
            const GemmOptions& options) {
  static GemmCache gemms;
  static WorkspacePool workspaces;
  const Gemm gemm = gemms.get(problem, options);
  const size_t bytes = gemm.workspaceSize();
  const auto [workspace, have] = bytes > 0 ? workspaces.get(stream, bytes) : std::pair<void*, size_t>{nullptr, 0};
  gemm.run(a, b, c, workspace, have, stream);
}

}  // namespace tilegrid
