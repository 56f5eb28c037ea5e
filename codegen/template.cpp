#include "codegen/template.h"

#include <set>

#include "ir/error.h"

namespace tilegrid::codegen {

std::string fillTemplate(const std::string& text, const std::map<std::string, std::string>& values) {
  std::string out;
  std::set<std::string> used;
  size_t pos = 0;
  while (true) {
    const size_t start = text.find('@', pos);
    if (start == std::string::npos) break;
    const size_t end = text.find('@', start + 1);
    TG_INTERNAL_CHECK(end != std::string::npos) << "unterminated placeholder in kernel template at offset " << start;
    const std::string name = text.substr(start + 1, end - start - 1);
    auto it = values.find(name);
    TG_INTERNAL_CHECK(it != values.end()) << "kernel template placeholder @" << name << "@ has no value";
    out += text.substr(pos, start - pos) + it->second;
    used.insert(name);
    pos = end + 1;
  }
  out += text.substr(pos);
  for (const auto& [name, value] : values) {
    TG_INTERNAL_CHECK(used.count(name)) << "value for @" << name << "@ is not used by the kernel template";
  }
  return out;
}

void addTemplateValues(std::map<std::string, std::string>& values, const std::map<std::string, std::string>& more) {
  for (const auto& [name, value] : more) {
    TG_INTERNAL_CHECK(values.emplace(name, value).second) << "kernel template value @" << name << "@ given twice";
  }
}

}  // namespace tilegrid::codegen
