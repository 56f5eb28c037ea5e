#pragma once
// Strict parsing of the CLI's numeric arguments: a malformed number is a UserError naming the
// option and the text, never a silent zero.
#include <cstdint>
#include <string>
#include <vector>

namespace tilegrid::cli {

int64_t parseInt(const std::string& text, const std::string& option);
// "4", "8,2": one or more integers separated by commas, no empty entries.
std::vector<int64_t> parseIntList(const std::string& text, const std::string& option);

// Throws UserError unless `format` is one of `allowed`, listing them.
void checkFormat(const std::string& format, const std::vector<std::string>& allowed);

}  // namespace tilegrid::cli
