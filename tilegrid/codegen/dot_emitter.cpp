#include "tilegrid/codegen/dot_emitter.h"

#include "tilegrid/codegen/cuda_dtype.h"
#include "tilegrid/codegen/emit_common.h"
#include "tilegrid/codegen/epilogue_function.h"
#include "tilegrid/codegen/index_functions.h"
#include "tilegrid/codegen/template.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {

KernelSource emitDot(const scheduler::MatmulSchedule& s) {
  TG_INTERNAL_CHECK(s.params.dot.has_value()) << "the dot emitter for a tiled schedule: " << s.params.toString();
  const scheduler::DotParams& dot = *s.params.dot;
  const scheduler::MatmulProblem prob = s.kernelProblem();
  TG_INTERNAL_CHECK(prob.a_dtype == prob.b_dtype) << "a dot kernel reads A and B of one type, got " << prob.toString();
  TG_INTERNAL_CHECK(!s.params.pad_a && !s.params.pad_b) << "dot kernels read their operands in place";
  // Computing C^T, the kernel's A is the caller's B and its B the caller's A.
  // A thread reads VEC consecutive elements of a row in one access only where the row runs along K.
  for (const ir::TensorDomain* gmem : {&s.gmem_a, &s.gmem_b}) {
    TG_INTERNAL_CHECK(dot.vec == 1 || constantStep(*gmem, 1) == 1)
        << gmem->name() << " does not run along K, but " << dot.toString() << " reads " << dot.vec << " K elements at once";
  }
  const scheduler::DotSplit split = scheduler::planDotSplit(prob, dot, s.device);
  ConfigBlock config(kernelName(s));
  config.type("in_t", cudaTypeName(prob.a_dtype)).type("out_t", cudaTypeName(prob.out_dtype));
  config.value("THREADS", dot.threads)
      .value("ROWS", dot.rows, "rows of A (M) a CTA's block holds; a thread keeps ROWS x COLS sums")
      .value("COLS", dot.cols, "columns of B (N) a CTA's block holds")
      .value("VEC", dot.vec, "K elements a thread reads from a row at once")
      .value("UNROLL", dot.unroll, "reads of each row a thread issues together")
      .flag("C_TRANSPOSED", s.params.swap_ab, "the kernel computes C^T: its output (m, n) is the caller's (n, m)")
      .value("FLAG_WORDS", streamKFlagWords(s.device), "the workspace's flag area, before its accumulation area");
  addEpilogueConfig(s.problem, config);
  KernelSource source;
  source.kernel_name = config.kernelName();
  source.cuda = assembleKernel({"any problem of its configuration; " + dot.toString() + (s.params.swap_ab ? " (C^T)" : ""),
                                {"dtype", "work_split", "problem", "epilogue_ops"},
                                emitGmemIndexFunctions(s),
                                &config,
                                printEpilogueFunction(s.problem),
                                {"fused_epilogue", "dot"},
                                "dot_gemm"});
  source.launch.grid = {static_cast<uint32_t>(split.chunks), static_cast<uint32_t>(prob.batch),
                        static_cast<uint32_t>(split.blocks)};
  source.launch.block = {static_cast<uint32_t>(dot.threads), 1, 1};
  // The counters and sums live in the workspace's zeroed area, which the kernel leaves zeroed.
  KernelArg workspace{"workspace", ArgKind::Pointer, "workspace", {}, {}};
  workspace.workspace_bytes = workspaceZeroBytes(s.device);
  source.args = {{"prob", ArgKind::Problem, "", {}, {}},
                 {"A", ArgKind::Pointer, s.params.swap_ab ? "B" : "A", {}, {}},
                 {"B", ArgKind::Pointer, s.params.swap_ab ? "A" : "B", {}, {}},
                 {"C", ArgKind::Pointer, "C", {}, {}},
                 workspace};
  return source;
}

}  // namespace tilegrid::codegen
