#pragma once
// Printing index math as CUDA statements. Every schedule-dependent index in generated code goes
// through here, from Vals the Indexer produced; nothing index-related is written by hand.
#include <string>

#include "ir/val.h"

namespace tilegrid::codegen {

// `const int tile_m = blockIdx.x / 7;`: the declaration of one index computed from `value`.
std::string declareIndex(const std::string& name, const ir::Val& value);

}  // namespace tilegrid::codegen
