// The kernels the runtime and the benchmarks launch themselves compile for both arches, without
// spills: CI has no GPU to compile them on first use.
#include <gtest/gtest.h>

#include "measure/read_inputs.h"
#include "tilegrid/runtime/buffer.h"
#include "tilegrid/runtime/builtin_kernels.h"
#include "tilegrid/runtime/compiler.h"

namespace tilegrid::runtime {
namespace {

TEST(BuiltinKernels, CompileForBothArchesWithoutSpills) {
  for (const codegen::KernelSource* source : {&padRowsSource(), &fillRandomSource(), &readInputsSource(), &readThroughL2Source()}) {
    for (scheduler::Arch arch : {scheduler::Arch::Sm80, scheduler::Arch::Sm90}) {
      const CompiledKernel k = compile(*source, arch);
      EXPECT_NE(k.ptx.find(".entry " + source->kernel_name), std::string::npos) << source->kernel_name;
      EXPECT_EQ(k.statsFor().spill_stores, 0) << source->kernel_name;
    }
  }
}

// Every load of the plain read survives: the sum that consumes them is never written, yet the
// compiler cannot prove it.
TEST(BuiltinKernels, PlainReadKeepsItsVectorLoads) {
  const CompiledKernel k = compile(readInputsSource(), scheduler::Arch::Sm90);
  EXPECT_NE(k.ptx.find("ld.global.cs.v4"), std::string::npos) << k.ptx;
}

// The read flush's loads keep the normal L2 priority (cache global, no evict-first hint), so that its
// lines push out what L2 held.
TEST(BuiltinKernels, ReadFlushLoadsWithTheNormalPriority) {
  const CompiledKernel k = compile(readThroughL2Source(), scheduler::Arch::Sm90);
  EXPECT_NE(k.ptx.find("ld.global.cg.v4"), std::string::npos) << k.ptx;
  EXPECT_EQ(k.ptx.find("ld.global.cs"), std::string::npos) << k.ptx;
}

}  // namespace
}  // namespace tilegrid::runtime
