#pragma once
// Filling @NAME@ placeholders in kernel templates. The non-index skeleton of a kernel (loops,
// instructions) is template text; every schedule-dependent index comes in through a placeholder
// or one of the index functions (codegen/index_functions.h).
#include <map>
#include <string>

namespace tilegrid::codegen {

// Replaces every @NAME@ with values[NAME]. Throws InternalError for a placeholder without a value
// or a value without a placeholder, so templates and emitters cannot drift apart.
std::string fillTemplate(const std::string& text, const std::map<std::string, std::string>& values);

// Adds `more` to `values`. Throws InternalError for a name given twice, which would otherwise let one
// value silently win.
void addTemplateValues(std::map<std::string, std::string>& values, const std::map<std::string, std::string>& more);

}  // namespace tilegrid::codegen
