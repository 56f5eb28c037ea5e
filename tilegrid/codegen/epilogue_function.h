#pragma once
// The kernel's fused epilogue, printed from the problem's ir::Epilogue: a device function
// tg_epilogue_value(acc, m, n, batch, ep, in, aux) that returns the value stored at (m, n) (the caller's
// coordinates) from its operands in memory, read by the caller (`in`), and sets the auxiliary output's
// value, one statement per IR node with the operations of codegen/device/epilogue_ops.cuh. The
// operands' element types, and where each vector operand runs, go into the configuration block.
#include <string>

#include "tilegrid/codegen/config_block.h"
#include "tilegrid/scheduler/problem.h"

namespace tilegrid::codegen {

std::string printEpilogueFunction(const scheduler::MatmulProblem& problem);

// HAS_EPILOGUE, what it reads (EPILOGUE_AUX, EPILOGUE_BIAS_AXIS, EPILOGUE_READS_C, EPILOGUE_READS_RESIDUAL), and the types tg_bias_t, tg_c_in_t, tg_residual_t, tg_aux_t.
void addEpilogueConfig(const scheduler::MatmulProblem& problem, ConfigBlock& config);

}  // namespace tilegrid::codegen
