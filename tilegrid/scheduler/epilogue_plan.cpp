#include "tilegrid/scheduler/epilogue_plan.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace tilegrid::scheduler {

EpiloguePlan planEpilogue(const MatmulProblem& p) {
  EpiloguePlan plan;
  plan.expression = p.epilogue.toString();
  const auto type = [&](const std::optional<DType>& t) { return t.value_or(p.out_dtype); };
  if (p.epilogueUses(ir::EpOp::BiasM)) {
    plan.operands.push_back({"bias[m]", type(p.bias_dtype), false, static_cast<double>(bytes(type(p.bias_dtype))) / static_cast<double>(p.n)});
  }
  if (p.epilogueUses(ir::EpOp::BiasN)) {
    plan.operands.push_back({"bias[n]", type(p.bias_dtype), false, static_cast<double>(bytes(type(p.bias_dtype))) / static_cast<double>(p.m)});
  }
  if (p.epilogueUses(ir::EpOp::C)) {
    plan.operands.push_back({"c", type(p.c_in_dtype), false, static_cast<double>(bytes(type(p.c_in_dtype)))});
  }
  if (p.epilogueUses(ir::EpOp::Residual)) {
    plan.operands.push_back({"residual", type(p.residual_dtype), false, static_cast<double>(bytes(type(p.residual_dtype)))});
  }
  if (p.hasAux()) plan.operands.push_back({"aux", type(p.aux_dtype), true, static_cast<double>(bytes(type(p.aux_dtype)))});
  return plan;
}

EpiloguePlan planEpilogue(const MatmulProblem& p, const MatmulParams& params) {
  EpiloguePlan plan = planEpilogue(p);
  for (EpilogueOperandUse& o : plan.operands) {
    if (o.name == "aux" && params.auxSlab(p)) {
      o.by_tma = true;
      plan.smem_bytes += params.slabPairBytes(p);
    } else if (o.name == "c" && params.cSlab(p)) {
      o.by_tma = true;
      plan.smem_bytes += params.slabPairBytes(p) + params.cSlabBarrierBytes();
    }
  }
  return plan;
}

double EpiloguePlan::bytesPerOutput() const {
  double total = 0;
  for (const EpilogueOperandUse& o : operands) total += o.bytes_per_output;
  return total;
}

std::string EpiloguePlan::toString() const {
  std::string text = fmt::format("epilogue: {}\n", expression);
  if (operands.empty()) return text + "  reads nothing beyond the accumulators\n";
  std::string list;
  for (const EpilogueOperandUse& o : operands) {
    list += fmt::format("{}{} {} ({}, {:.3g} bytes per output{})", list.empty() ? "" : ", ", o.written ? "writes" : "reads",
                        o.name, scheduler::toString(o.type), o.bytes_per_output,
                        o.by_tma ? ", by TMA through slab buffers of its own" : "");
  }
  text += "  " + list + "\n";
  return text + fmt::format(
                    "  applied in registers over the accumulators after the main loop; {} bytes of shared memory, {} "
                    "registers held across the main loop for it\n",
                    smem_bytes, registers_across_main_loop);
}

void to_json(nlohmann::json& j, const EpiloguePlan& plan) {
  nlohmann::json operands = nlohmann::json::array();
  for (const EpilogueOperandUse& o : plan.operands) {
    operands.push_back({{"name", o.name},
                        {"dtype", scheduler::toString(o.type)},
                        {"written", o.written},
                        {"by_tma", o.by_tma},
                        {"bytes_per_output", o.bytes_per_output}});
  }
  j = {{"expression", plan.expression},
       {"operands", operands},
       {"smem_bytes", plan.smem_bytes},
       {"registers_across_main_loop", plan.registers_across_main_loop}};
}

}  // namespace tilegrid::scheduler
