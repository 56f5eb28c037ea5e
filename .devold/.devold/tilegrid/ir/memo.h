#pragma once
// Results of a pure function of one key, computed once per process. For checks that walk every
// element of a tile (bank conflicts, TMA boxes against the scheduled layout), which depend only on
// a tile's domain and cost far more than the rest of scheduling: every problem of one configuration
// shares them. Keys are printed forms (a domain's toString and the parameters beside it), so equal
// keys mean equal inputs. Safe to use from several threads; two threads may both compute a missing
// value, and the first stored wins (the function is pure).
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace tilegrid::ir {

// A key from the inputs a memoized function reads: each part's printed form (toString() where it has
// one, integers in decimal, text as it is), one line each.
template <typename... Parts>
std::string memoKey(const Parts&... parts) {
  std::string key;
  const auto add = [&](const auto& part) {
    using Part = std::decay_t<decltype(part)>;
    if constexpr (requires { part.toString(); }) {
      key += part.toString();
    } else if constexpr (std::is_integral_v<Part>) {
      key += std::to_string(part);
    } else {
      key += part;
    }
    key += '\n';
  };
  (add(parts), ...);
  return key;
}

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
