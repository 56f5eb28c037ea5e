#include "codegen/cuda_printer.h"

#include "ir/error.h"

namespace tilegrid::codegen {

std::string declareIndex(const std::string& name, const ir::Val& value) {
  TG_USER_CHECK(!name.empty()) << "an index declaration needs a name";
  return std::string(value.isBool() ? "const bool " : "const int ") + name + " = " + value.toString() + ";";
}

}  // namespace tilegrid::codegen
