#include "tilegrid/codegen/template.h"

#include "tilegrid/codegen/device_helpers.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {

std::string assembleKernel(const KernelText& text) {
  TG_INTERNAL_CHECK(text.config != nullptr) << "a kernel needs its configuration";
  std::string out = "// " + text.config->kernelName() + ": " + text.summary + "\n";
  out += deviceHelperSource(text.helpers);
  out += "// ---- index functions, printed from the Indexer ----\n" + text.index_functions;
  out += text.config->print();
  out += text.epilogue_function;
  out += deviceHelperSource(text.parts, /*with_common=*/false);
  out += "// ---- kernel template: " + text.kernel_template + ".cu ----\n";
  return out + kernelTemplate(text.kernel_template);
}

}  // namespace tilegrid::codegen
