#pragma once
// IterDomain: one axis of iteration, with an extent, an iteration kind and a parallel binding.
#include <compare>
#include <string>

#include "tilegrid/ir/val.h"

namespace tilegrid::ir {

enum class IterType { Iteration, Reduction, Broadcast };

enum class ParallelType { Serial, BIDx, BIDy, BIDz, TIDx, TIDy, TIDz, Vectorize, Unroll };

// A handle to an IterDomain inside a TransformGraph (its position in the graph's table).
struct IterDomainId {
  int index = -1;
  bool valid() const { return index >= 0; }
  auto operator<=>(const IterDomainId&) const = default;
};

struct IterDomain {
  IterDomainId id;
  std::string name;
  Val extent;
  IterType iter_type = IterType::Iteration;
  ParallelType parallel = ParallelType::Serial;

  // `m0{10}`, `i5{ceilDiv(M, 4)}[blockIdx.x]`: name, id, extent, then the binding if parallel.
  std::string toString() const;
  // The name an index variable of this domain gets by default: `m0`, `i5`.
  std::string indexName() const;
};

const char* toString(IterType type);
const char* toString(ParallelType type);
// The CUDA built-in a parallel type binds to (`blockIdx.x`), or nullptr for Serial/Vectorize/Unroll.
const char* cudaBuiltin(ParallelType type);

}  // namespace tilegrid::ir
