// tilegrid::matmul: the one-call form of Gemm, over a process-wide cache of Gemms and workspaces.
#include <cuda.h>

#include <algorithm>
#include <array>
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

// The problem as the caller described it (before validation fills in anything) and the options: a
// key built without allocating, so that a call that finds its Gemm costs little more than the launch.
struct Key {
  std::array<int64_t, 28> fields{};
  bool operator==(const Key&) const = default;
};

Key keyOf(const MatmulProblem& p, const GemmOptions& o) {
  return Key{{p.m, p.n, p.k, p.batch, static_cast<int64_t>(p.a_dtype), static_cast<int64_t>(p.b_dtype),
              static_cast<int64_t>(p.out_dtype), static_cast<int64_t>(p.layout), p.align_a, p.align_b, p.align_c,
              p.lda, p.ldb, p.ldc, p.stride_a, p.stride_b, p.stride_c,
              static_cast<int64_t>(p.epilogue.hash()), static_cast<int64_t>(p.bias_dtype.value_or(p.out_dtype)),
              static_cast<int64_t>(p.c_in_dtype.value_or(p.out_dtype)),
              static_cast<int64_t>(p.residual_dtype.value_or(p.out_dtype)),
              static_cast<int64_t>(p.aux_dtype.value_or(p.out_dtype)), static_cast<int64_t>(p.scale),
              o.arch ? static_cast<int64_t>(*o.arch) + 1 : 0, o.specialize_shape, o.deterministic,
              o.fixed_choices ? (*o.fixed_choices ? 2 : 1) : 0, o.overlap_prior_kernel}};
}

struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
    for (int64_t f : k.fields) h = (h ^ static_cast<uint64_t>(f)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

// Gemms by problem, least recently used first out. Concurrent requests for one key build it once:
// the others wait on its future.
class GemmCache {
 public:
  Gemm get(const MatmulProblem& problem, const GemmOptions& options) {
    const Key key = keyOf(problem, options);
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
        promise.set_value(Gemm(problem, options));
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
    Gemm gemm = future.get();
    // The key holds the epilogue's hash: a Gemm whose epilogue differs shares it only by a collision,
    // and is built apart.
    if (gemm.problem().epilogue != problem.epilogue) return Gemm(problem, options);
    return gemm;
  }

 private:
  struct Entry {
    std::shared_future<Gemm> gemm;
    std::list<Key>::iterator place;
  };
  std::mutex mutex_;
  std::unordered_map<Key, Entry, KeyHash> entries_;
  std::list<Key> order_;
};

// A zeroed workspace per stream, grown as needed. Launches on one stream run in order, so they can
// share it; the per-thread default stream is a different stream in every thread. A call holds its
// workspace while it queues its work (padded copies, then the kernel), so that two threads on one
// stream cannot interleave one's copies with the other's kernel. A workspace that is outgrown stays
// allocated (a launch queued before may still use it).
class WorkspacePool {
 public:
  struct Lease {
    void* data = nullptr;
    size_t bytes = 0;
    std::unique_lock<std::mutex> hold;
  };

  Lease get(CUstream stream, size_t bytes) {
    const std::thread::id thread = stream == CU_STREAM_PER_THREAD ? std::this_thread::get_id() : std::thread::id{};
    Slot* slot = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::unique_ptr<Slot>& s = slots_[{stream, thread}];
      if (!s) s = std::make_unique<Slot>();
      slot = s.get();
    }
    std::unique_lock<std::mutex> hold(slot->use);
    if (slot->buffer.bytes() < bytes) {
      // At least doubled, so that a stream outgrows its workspace a few times at most.
      runtime::DeviceBuffer grown(std::max(bytes, 2 * slot->buffer.bytes()));
      grown.fill(0, stream);
      std::lock_guard<std::mutex> lock(mutex_);
      if (slot->buffer.bytes() > 0) retired_.push_back(std::move(slot->buffer));
      slot->buffer = std::move(grown);
    }
    return {reinterpret_cast<void*>(static_cast<uintptr_t>(slot->buffer.ptr())), slot->buffer.bytes(), std::move(hold)};
  }

 private:
  struct Slot {
    std::mutex use;
    runtime::DeviceBuffer buffer;
  };
  struct StreamHash {
    size_t operator()(const std::pair<CUstream, std::thread::id>& k) const {
      return std::hash<CUstream>()(k.first) ^ std::hash<std::thread::id>()(k.second);
    }
  };
  std::mutex mutex_;
  std::unordered_map<std::pair<CUstream, std::thread::id>, std::unique_ptr<Slot>, StreamHash> slots_;
  std::vector<runtime::DeviceBuffer> retired_;
};

}  // namespace

void matmul(const MatmulProblem& problem, const void* a, const void* b, void* c, CUstream_st* stream,
            const GemmOptions& options, const EpilogueArgs& epilogue) {
  static GemmCache gemms;
  static WorkspacePool workspaces;
  const Gemm gemm = gemms.get(problem, options);
  const size_t bytes = gemm.workspaceSize();
  if (bytes == 0) {
    gemm.run(a, b, c, nullptr, 0, stream, epilogue);
    return;
  }
  const WorkspacePool::Lease workspace = workspaces.get(stream, bytes);
  gemm.run(a, b, c, workspace.data, workspace.bytes, stream, epilogue);
}

}  // namespace tilegrid
