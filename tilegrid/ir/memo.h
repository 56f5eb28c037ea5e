#pragma once
// Results of a pure function of one key, computed once per process. For checks that walk every
// element of a tile (bank conflicts, TMA boxes against the scheduled layout), which depend only on
// a tile's domain and cost far more than the rest of scheduling: every problem of one configuration
// shares them. Keys are printed forms (a domain's toString and the parameters beside it), so equal
// keys mean equal inputs. Safe to use from several threads; two threads may both compute a missing
// value, and the first stored wins (the function is pure).
#include <mutex>
#include <string>
#include <unordered_map>

namespace tilegrid::ir {

template <typename Value>
class Memo {
 public:
  template <typename Compute>
  Value get(const std::string& key, Compute&& compute) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (const auto it = values_.find(key); it != values_.end()) return it->second;
    }
    Value value = compute();
    const std::lock_guard<std::mutex> lock(mutex_);
    return values_.emplace(key, std::move(value)).first->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, Value> values_;
};

}  // namespace tilegrid::ir
