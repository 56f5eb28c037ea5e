// Schedules, emits and (where NVRTC is found) compiles a GEMM through the installed library.
#include <tilegrid/tilegrid.h>
#include <tilegrid/runtime/kernel_cache.h>

#include <iostream>

int main() {
  namespace sc = tilegrid::scheduler;
  sc::MatmulProblem problem;
  problem.m = problem.n = problem.k = 4000;
  problem.validate();
  const sc::MatmulSchedule schedule = sc::schedule(problem, sc::DeviceSpec::preset("sm_90"));
  const tilegrid::codegen::KernelSource source = tilegrid::codegen::emit(schedule);
  const auto compiled = tilegrid::runtime::KernelCache::global().get(source, sc::Arch::Sm90);
  // The persistent kernels' work split: 240 units on 66 clusters share a 42-unit last wave.
  const sc::WorkSplit split = sc::planWorkSplit(240, 66, 64, true);
  std::cout << source.kernel_name << " " << compiled->cubin.size() << " bytes of SASS; " << 240 - split.dp_units
            << " units shared by stream-K\n";
  return source.kernel_name.rfind("tilegrid_sm90_", 0) == 0 && !compiled->cubin.empty() && split.dp_units == 198 ? 0 : 1;
}
