#pragma once
// Strict parsing of the CLI's numeric arguments: a malformed number is a UserError naming the
// option and the text, never a silent zero.
#include <cstdint>
#include <string>
#include <vector>

#include "tilegrid/ir/error.h"

namespace tilegrid::cli {

int64_t parseInt(const std::string& text, const std::string& option);
// "4", "8,2": one or more integers separated by commas, no empty entries.
std::vector<int64_t> parseIntList(const std::string& text, const std::string& option);

// A tile shape of the extents named in `dims` ("M,N,K"): "128,256,64", or "128x256x64" as tiles print.
std::vector<int64_t> parseShape(const std::string& text, const std::string& option, const std::string& dims);

// Runs `parse`, prefixing any UserError's message with the option it came from.
template <typename Parse>
auto forOption(const std::string& option, Parse&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const UserError& e) {
    throw UserError(option + ": " + e.what());
  }
}

// Throws UserError unless `value` of `option` is one of `allowed`, listing them.
void checkChoice(const std::string& option, const std::string& value, const std::vector<std::string>& allowed);

// An on|off switch: true for on, false for off, else the UserError of checkChoice.
bool parseOnOff(const std::string& option, const std::string& value);

}  // namespace tilegrid::cli
