// Schedules, emits and (where NVRTC is found) compiles a GEMM through the installed library.
#include <tilegrid/tilegrid.h>

#include <iostream>

int main() {
  namespace sc = tilegrid::scheduler;
  sc::MatmulProblem problem;
  problem.m = problem.n = problem.k = 4000;
  problem.validate();
  const sc::MatmulSchedule schedule = sc::schedule(problem, sc::DeviceSpec::preset("sm_90"));
  const tilegrid::codegen::KernelSource source = tilegrid::codegen::emit(schedule);
  const auto compiled = tilegrid::runtime::KernelCache::global().get(source, sc::Arch::Sm90);
  std::cout << source.kernel_name << " " << compiled->cubin.size() << " bytes of SASS\n";
  return source.kernel_name.rfind("tilegrid_sm90_", 0) == 0 && !compiled->cubin.empty() ? 0 : 1;
}
