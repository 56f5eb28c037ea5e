#pragma once
// Assembling a kernel's source: the device helpers it calls, the index functions printed from its
// IR, its configuration block, the kernel parts that read the configuration, and the kernel template
// (codegen/templates/*.cu), each pasted verbatim. Only the index functions, the configuration and the
// epilogue function are generated; nothing is substituted into the helpers or the template.
#include <string>
#include <vector>

#include "tilegrid/codegen/config_block.h"

namespace tilegrid::codegen {

struct KernelText {
  std::string summary;                 // the first comment line: what the kernel computes
  std::vector<std::string> helpers;    // codegen/device/*.cuh that need nothing of the configuration
  std::string index_functions;         // printed from the Indexer
  const ConfigBlock* config = nullptr;
  std::string epilogue_function;       // printed from the problem's ir::Epilogue (epilogue_function.h)
  std::vector<std::string> parts;      // codegen/device/*.cuh that read the configuration
  std::string kernel_template;         // codegen/templates/<name>.cu
};

std::string assembleKernel(const KernelText& text);

}  // namespace tilegrid::codegen
