#include "tilegrid/codegen/device_helpers.h"

#include <algorithm>

#include "tilegrid/ir/check.h"

namespace tilegrid::codegen {

std::string deviceHelperSource(const std::vector<std::string>& names, bool with_common) {
  std::vector<std::string> order;
  if (with_common) order.push_back("common");
  for (const std::string& n : names) {
    if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
  }
  std::string source;
  for (const std::string& n : order) {
    const auto& helpers = embeddedDeviceHelpers();
    auto it = std::find_if(helpers.begin(), helpers.end(), [&](const DeviceHelper& h) { return n == h.name; });
    if (it == helpers.end()) {
      std::string known;
      for (const DeviceHelper& h : helpers) known += (known.empty() ? "" : ", ") + std::string(h.name);
      TG_USER_ERROR() << "unknown device helper '" << n << "': known helpers are " << known;
    }
    // Each helper is pasted once, so its include guard would only draw warnings in a .cu file.
    std::string text = it->source;
    for (size_t p = text.find("#pragma once\n"); p != std::string::npos; p = text.find("#pragma once\n")) {
      text.erase(p, 13);
    }
    source += "// ---- tilegrid device helper: " + n + ".cuh ----\n" + text + "\n";
  }
  return source;
}

const char* kernelTemplate(const std::string& name) {
  for (const DeviceHelper& t : embeddedKernelTemplates()) {
    if (name == t.name) return t.source;
  }
  TG_INTERNAL_ERROR() << "kernel template '" << name << "' is not embedded";
  return "";
}

}  // namespace tilegrid::codegen
