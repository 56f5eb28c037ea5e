#pragma once
// Reading a generated kernel's configuration block (tilegrid/codegen/config_block.h) in tests.
#include <regex>
#include <string>

namespace tilegrid::testing {

// The value of configuration entry `name` (in struct `group` of tg_config, when given) as printed:
// "true", "128", "{{0, 32}}". Empty when the source has no such entry.
inline std::string configValue(const std::string& cuda, const std::string& name, const std::string& group = "") {
  const size_t begin = cuda.find("namespace tg_config {\n");
  const size_t end = cuda.find("}  // namespace tg_config", begin);
  if (begin == std::string::npos || end == std::string::npos) return "";
  std::string block = cuda.substr(begin, end - begin);
  if (!group.empty()) {
    const size_t g = block.find("struct " + group + " {\n");
    if (g == std::string::npos) return "";
    block = block.substr(g, block.find("};", g) - g);
  } else {
    // Values of the namespace itself come before its structs.
    block = block.substr(0, block.find("\nstruct "));
  }
  std::smatch match;
  const std::regex entry("constexpr [a-z_<>0-9 ]+ " + name + " = ([^;]*);");
  return std::regex_search(block, match, entry) ? match[1].str() : "";
}

}  // namespace tilegrid::testing
