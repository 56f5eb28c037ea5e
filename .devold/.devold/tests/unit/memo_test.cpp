// ir::Memo: a pure function's result per key, computed once and shared, also across threads.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tilegrid/ir/memo.h"

namespace tilegrid::ir {
namespace {

TEST(Memo, ComputesEachKeyOnceAndReturnsItsValue) {
  Memo<int64_t> memo;
  int calls = 0;
  const auto square = [&](int64_t x) {
    return memo.get(std::to_string(x), [&] {
      ++calls;
      return x * x;
    });
  };
  for (int round = 0; round < 3; ++round) {
    for (int64_t x = 0; x < 50; ++x) EXPECT_EQ(square(x), x * x);
  }
  EXPECT_EQ(calls, 50);
}

// A key prints every part on its own line: parts that print alike give one key, others do not.
struct Printed {
  std::string text;
  std::string toString() const { return text; }
};

TEST(Memo, KeysPrintEachPartOnItsOwnLine) {
  EXPECT_EQ(memoKey(Printed{"tile"}, int64_t{128}, "K", true), "tile\n128\nK\n1\n");
  EXPECT_NE(memoKey("a", "bc"), memoKey("ab", "c"));
  EXPECT_NE(memoKey(Printed{"x"}, 1), memoKey(Printed{"x"}, 2));
}

// Threads asking for the same keys at once all get the function's value; each key is computed at
// most once a thread (a missing value may be computed twice, never stored twice).
TEST(Memo, ThreadsShareValues) {
  Memo<std::string> memo;
  std::atomic<int> calls{0};
  constexpr int kThreads = 8, kKeys = 64;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        for (int k = 0; k < kKeys; ++k) {
          const std::string key = "k" + std::to_string(k);
          const std::string value = memo.get(key, [&] {
            ++calls;
            return key + "!";
          });
          if (value != key + "!") ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(calls.load(), kKeys);
  EXPECT_LE(calls.load(), kKeys * kThreads);
}

}  // namespace
}  // namespace tilegrid::ir
