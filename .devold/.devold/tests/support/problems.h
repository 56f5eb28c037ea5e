#pragma once
// A validated bf16 problem for the scheduler's unit tests.
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::testing {

inline scheduler::MatmulProblem bf16Problem(int64_t m, int64_t n, int64_t k,
                                            scheduler::Layout layout = scheduler::Layout::TN) {
  scheduler::MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.layout = layout;
  return p.validate();
}

}  // namespace tilegrid::testing
