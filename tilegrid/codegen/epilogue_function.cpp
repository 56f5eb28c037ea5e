#include "tilegrid/codegen/epilogue_function.h"

#include <fmt/format.h>

#include "tilegrid/codegen/cuda_dtype.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {
namespace {

using ir::EpOp;

// A float literal that reads back as the same float.
std::string floatLiteral(double v) {
  std::string text = fmt::format("{}", static_cast<float>(v));
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  if (text.find("inf") != std::string::npos || text.find("nan") != std::string::npos) {
    TG_INTERNAL_ERROR() << "epilogue constant " << v << " is not a finite float";
  }
  return text + "f";
}

// The right-hand side of node i's statement, its operands named e<index>.
std::string expression(const scheduler::MatmulProblem& p, int i) {
  const ir::Epilogue& e = p.epilogue;
  const ir::EpNode& n = e.nodes()[i];
  const std::string a = fmt::format("e{}", n.a), b = fmt::format("e{}", n.b);
  switch (n.op) {
    case EpOp::Acc: return "acc";
    case EpOp::Alpha: return "ep.alpha";
    case EpOp::Beta: return "ep.beta";
    case EpOp::Constant: return floatLiteral(n.value);
    // The operands in memory come read (tg_ep_inputs): where each lies is the configuration's
    // (EPILOGUE_BIAS_AXIS, EPILOGUE_SCALE_*_AXIS), and the caller reads each element once for all the
    // values that use it.
    case EpOp::BiasM:
    case EpOp::BiasN: return "in.bias";
    case EpOp::C: return "in.c";
    case EpOp::Residual: return "in.residual";
    case EpOp::ScaleA: return "in.scale_a";
    case EpOp::ScaleB: return "in.scale_b";
    case EpOp::Neg: return "-" + a;
    case EpOp::Relu: return "tg_relu(" + a + ")";
    case EpOp::Gelu: return "tg_gelu(" + a + ")";
    case EpOp::GeluTanh: return "tg_gelu_tanh(" + a + ")";
    case EpOp::Silu: return "tg_silu(" + a + ")";
    case EpOp::Sigmoid: return "tg_sigmoid(" + a + ")";
    case EpOp::Tanh: return "tg_tanh(" + a + ")";
    case EpOp::Exp: return "tg_exp(" + a + ")";
    case EpOp::RoundBf16: return "tg_round_to<__nv_bfloat16>(" + a + ")";
    case EpOp::RoundFp16: return "tg_round_to<__half>(" + a + ")";
    case EpOp::Add: return a + " + " + b;
    case EpOp::Sub: return a + " - " + b;
    case EpOp::Mul: return a + " * " + b;
    case EpOp::Div: return a + " / " + b;
    case EpOp::Max: return "fmaxf(" + a + ", " + b + ")";
    case EpOp::Min: return "fminf(" + a + ", " + b + ")";
  }
  TG_INTERNAL_ERROR() << "epilogue op " << ir::toString(n.op) << " has no CUDA form";
  return "";
}

// Where the epilogue's scale leaf `op` runs, as the device's TG_VECTOR_*: along the operand's rows
// (`along`: 1 m, 2 n) with row scales, one value with tensor scales, or 0 where it is not read.
int scaleAxis(const scheduler::MatmulProblem& p, EpOp op, int along) {
  if (!p.epilogueUses(op)) return 0;
  return p.scale == scheduler::ScaleMode::Row ? along : 3;
}

}  // namespace

std::string printEpilogueFunction(const scheduler::MatmulProblem& problem) {
  const ir::Epilogue& e = problem.epilogue;
  std::string out = "// ---- epilogue, printed from its IR: " + e.toString() + " ----\n";
  out +=
      "// The value stored at (m, n) of batch entry `batch` (the caller's C), from the computed `acc` and the\n"
      "// operands' elements there (`in`, read by the caller: tg_ep_load_inputs), and the auxiliary output's\n"
      "// value there (EPILOGUE_AUX). Callers pass coordinates inside C, clamped where the element lies\n"
      "// outside: reads never branch, so that a slab's reads are all in flight at once.\n";
  out +=
      "__device__ __forceinline__ float tg_epilogue_value(float acc, int m, int n, int batch, const tg_epilogue_args& "
      "ep,\n                                                   const tg_ep_inputs& in, float& aux) {\n";
  const std::vector<bool> live = e.live();
  for (size_t i = 0; i < e.nodes().size(); ++i) {
    if (live[i]) out += fmt::format("  const float e{} = {};\n", i, expression(problem, static_cast<int>(i)));
  }
  out += e.aux() ? fmt::format("  aux = e{};\n", *e.aux()) : "  aux = 0.f;\n";
  out += "  (void)m; (void)n; (void)batch; (void)ep; (void)in;\n";
  return out + fmt::format("  return e{};\n}}\n", e.output());
}

void addEpilogueConfig(const scheduler::MatmulProblem& p, ConfigBlock& config) {
  const auto type = [&](const std::optional<scheduler::DType>& t) { return cudaTypeName(t.value_or(p.out_dtype)); };
  config.type("bias_t", type(p.bias_dtype))
      .type("c_in_t", type(p.c_in_dtype))
      .type("residual_t", type(p.residual_dtype))
      .type("aux_t", type(p.aux_dtype));
  config.flag("HAS_EPILOGUE", !p.epilogue.isIdentity(), "each value passes through tg_epilogue_value before it is stored")
      .value("EPILOGUE_BIAS_AXIS", p.epilogueUses(EpOp::BiasM) ? 1 : p.epilogueUses(EpOp::BiasN) ? 2 : 0,
             "the epilogue's bias vector runs along m (1) or n (2), or there is none (0)")
      .value("EPILOGUE_SCALE_A_AXIS", scaleAxis(p, EpOp::ScaleA, /*along=*/1),
             "A's scales: one per row along m (1), the tensor's one (3), or none (0)")
      .value("EPILOGUE_SCALE_B_AXIS", scaleAxis(p, EpOp::ScaleB, /*along=*/2),
             "B's scales: one per column along n (2), the tensor's one (3), or none (0)")
      .flag("EPILOGUE_AUX", p.hasAux(), "the epilogue stores an auxiliary output")
      .flag("EPILOGUE_READS_C", p.epilogueUses(EpOp::C))
      .flag("EPILOGUE_READS_RESIDUAL", p.epilogueUses(EpOp::Residual));
}

}  // namespace tilegrid::codegen
