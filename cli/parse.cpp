#include "cli/parse.h"

#include <charconv>

#include "ir/error.h"

namespace tilegrid::cli {

int64_t parseInt(const std::string& text, const std::string& option) {
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  TG_USER_CHECK(!text.empty() && ec != std::errc::invalid_argument && ptr == end)
      << option << ": '" << text << "' is not an integer";
  TG_USER_CHECK(ec != std::errc::result_out_of_range) << option << ": '" << text << "' is out of range";
  return value;
}

std::vector<int64_t> parseIntList(const std::string& text, const std::string& option) {
  std::vector<int64_t> values;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    TG_USER_CHECK(!item.empty()) << option << ": '" << text << "' has an empty entry; expected integers separated by commas";
    values.push_back(parseInt(item, option));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

void checkChoice(const std::string& option, const std::string& value, const std::vector<std::string>& allowed) {
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (allowed[i] == value) return;
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  }
  TG_USER_ERROR() << option << ": unknown value '" << value << "': expected " << list;
}

bool parseOnOff(const std::string& option, const std::string& value) {
  checkChoice(option, value, {"on", "off"});
  return value == "on";
}

}  // namespace tilegrid::cli
