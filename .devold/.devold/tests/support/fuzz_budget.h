#pragma once
// The seed and time budget of a bounded fuzz test: TILEGRID_FUZZ_SEED replays a run, and
// TILEGRID_FUZZ_SECONDS bounds it (default `seconds`). The seed is printed so a failure in CI can be
// replayed exactly.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

namespace tilegrid::testing {

class FuzzBudget {
 public:
  FuzzBudget(const std::string& name, double seconds) {
    const char* seed = std::getenv("TILEGRID_FUZZ_SEED");
    seed_ = seed ? std::strtoull(seed, nullptr, 10) : std::random_device{}();
    const char* limit = std::getenv("TILEGRID_FUZZ_SECONDS");
    seconds_ = limit ? std::atof(limit) : seconds;
    std::cout << name << ": seed " << seed_ << " (replay with TILEGRID_FUZZ_SEED=" << seed_ << "), " << seconds_
              << " s" << std::endl;  // flushed: a sanitizer abort must not lose the seed
  }
  uint64_t seed() const { return seed_; }
  bool more() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() < seconds_;
  }

 private:
  uint64_t seed_ = 0;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace tilegrid::testing
