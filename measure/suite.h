#pragma once
// A benchmark suite: named GEMM problems in categories, read from a JSON file (bench/suites/*.json).
//
//   {"cases": [{"name": "llama8b-qkv-m1", "category": "decode", "m": 1, "n": 6144, "k": 4096}, ...]}
//
// Per case: m, n, k (required); batch (1); layouts (["TN", "NT"]: one run each); dtype ("bf16"), b_dtype
// (the dtype: e4m3 and e5m2 mix), scale ("none": 8-bit inputs' tensor or row scales); out_dtype (the
// dtype, bf16 for 8-bit inputs); lda, ldb, ldc (0: packed); schedules: besides the default schedule, each
// layout also runs under these choices, each an object of swap_ab (bool), cta_tile ([M, N, K]),
// cluster and stages (whole numbers), dot (bool: the dot kernel or a tiled one), which the scheduler takes as overrides: how a tile rule's
// alternatives are measured into a dataset (`tilegrid bench --format dataset`). Unknown keys are
// refused, so that a misspelt field is not silently ignored.
#include <string>
#include <vector>

#include "tilegrid/scheduler/heuristics.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::runtime {

struct SuiteCase {
  // Unique in the suite, with the layout appended ("square-4096/TN") and any schedule's choices
  // ("narrow-1x4096x4096/TN --cta-tile 64x8x128 --cluster 1").
  std::string name;
  std::string category;
  scheduler::MatmulProblem problem;  // validated
  // The choices the schedule is held to, as `tilegrid run` options; "default" for none.
  std::string config = "default";
  scheduler::ScheduleOverrides overrides;
};

// The name of the problem a case runs: a case under a schedule of its own is named after its
// problem's default case, then the schedule's choices; this strips them.
std::string problemName(const std::string& case_name, const std::string& config);

// Every case of the suite, one per layout. Throws UserError naming the case and the field.
std::vector<SuiteCase> parseSuite(const std::string& json_text);
std::vector<SuiteCase> readSuite(const std::string& path);

}  // namespace tilegrid::runtime
