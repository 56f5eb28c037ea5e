#pragma once
// A benchmark suite: named GEMM problems in categories, read from a JSON file (bench/suites/*.json).
//
//   {"cases": [{"name": "llama8b-qkv-m1", "category": "decode", "m": 1, "n": 6144, "k": 4096}, ...]}
//
// Per case: m, n, k (required); batch (1); layouts (["TN", "NT"]: one run each); dtype ("bf16");
// out_dtype (the dtype); lda, ldb, ldc (0: packed). Unknown keys are refused, so that a misspelt
// field is not silently ignored.
#include <string>
#include <vector>

#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

struct SuiteCase {
  std::string name;      // unique in the suite, with the layout appended: "square-4096/TN"
  std::string category;
  scheduler::MatmulProblem problem;  // validated
};

// Every case of the suite, one per layout. Throws UserError naming the case and the field.
std::vector<SuiteCase> parseSuite(const std::string& json_text);
std::vector<SuiteCase> readSuite(const std::string& path);

}  // namespace tilegrid::runtime
