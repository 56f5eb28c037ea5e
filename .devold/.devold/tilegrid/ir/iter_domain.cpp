#include "tilegrid/ir/iter_domain.h"

namespace tilegrid::ir {

std::string IterDomain::indexName() const { return name + std::to_string(id.index); }

std::string IterDomain::toString() const {
  std::string text = indexName() + "{" + extent.toString() + "}";
  if (iter_type != IterType::Iteration) text += std::string("(") + ir::toString(iter_type) + ")";
  if (parallel != ParallelType::Serial) text += std::string("[") + ir::toString(parallel) + "]";
  return text;
}

const char* toString(IterType type) {
  switch (type) {
    case IterType::Iteration: return "iteration";
    case IterType::Reduction: return "reduction";
    case IterType::Broadcast: return "broadcast";
  }
  return "?";
}

const char* toString(ParallelType type) {
  switch (type) {
    case ParallelType::Serial: return "serial";
    case ParallelType::Vectorize: return "vectorize";
    case ParallelType::Unroll: return "unroll";
    default: return cudaBuiltin(type);
  }
}

const char* cudaBuiltin(ParallelType type) {
  switch (type) {
    case ParallelType::BIDx: return "blockIdx.x";
    case ParallelType::BIDy: return "blockIdx.y";
    case ParallelType::BIDz: return "blockIdx.z";
    case ParallelType::TIDx: return "threadIdx.x";
    case ParallelType::TIDy: return "threadIdx.y";
    case ParallelType::TIDz: return "threadIdx.z";
    default: return nullptr;
  }
}

}  // namespace tilegrid::ir
