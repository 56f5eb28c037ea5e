#include "tilegrid/codegen/pointwise_epilogue.h"

#include "tilegrid/codegen/config_block.h"
#include "tilegrid/codegen/cuda_dtype.h"
#include "tilegrid/codegen/epilogue_function.h"
#include "tilegrid/codegen/template.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {

int pointwiseVector(const scheduler::MatmulProblem& p) {
  const int64_t vec = 16 / scheduler::bytes(p.out_dtype);
  const bool whole = p.n % vec == 0 && p.leadingDimC() % vec == 0 && (p.batch == 1 || p.batchStrideC() % vec == 0) &&
                     p.align_c % vec == 0;
  return whole ? static_cast<int>(vec) : 1;
}

KernelSource emitPointwiseEpilogue(const scheduler::MatmulProblem& p) {
  TG_INTERNAL_CHECK(!p.epilogue.isIdentity()) << "a pointwise epilogue kernel for a problem without an epilogue";
  const int vec = pointwiseVector(p);
  ConfigBlock config("tilegrid_pointwise_epilogue_v" + std::to_string(vec));
  config.type("out_t", cudaTypeName(p.out_dtype));
  config.value("VEC", vec, "elements of a row a thread takes");
  addEpilogueConfig(p, config);
  KernelSource source;
  source.kernel_name = config.kernelName();
  source.cuda = assembleKernel({"C = epilogue(C) in place: " + p.epilogue.toString(),
                                {"dtype", "work_split", "problem", "epilogue_ops"},
                                "",
                                &config,
                                printEpilogueFunction(p),
                                {"fused_epilogue"},
                                "pointwise_epilogue"});
  source.launch.block = {256, 1, 1};
  return source;
}

}  // namespace tilegrid::codegen
