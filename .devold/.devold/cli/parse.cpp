#include "cli/parse.h"

#include <algorithm>
#include <charconv>

#include "tilegrid/ir/check.h"

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

namespace {

// Integers separated by `sep`, no empty entries; `expected` says what was wanted when one is empty.
std::vector<int64_t> splitInts(const std::string& text, const std::string& option, char sep, const std::string& expected) {
  std::vector<int64_t> values;
  size_t start = 0;
  while (true) {
    const size_t at = text.find(sep, start);
    const std::string item = text.substr(start, at == std::string::npos ? std::string::npos : at - start);
    TG_USER_CHECK(!item.empty()) << option << ": '" << text << "' has an empty entry; expected " << expected;
    values.push_back(parseInt(item, option));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return values;
}

}  // namespace

std::vector<int64_t> parseIntList(const std::string& text, const std::string& option) {
  return splitInts(text, option, ',', "integers separated by commas");
}

std::vector<int64_t> parseShape(const std::string& text, const std::string& option, const std::string& dims) {
  std::string crossed = dims;
  std::replace(crossed.begin(), crossed.end(), ',', 'x');
  const std::string expected = dims + " or " + crossed;
  // Tiles print as 128x256x64 (plan, kernel names), so that form is accepted as well as commas.
  const char sep = text.find(',') == std::string::npos && text.find('x') != std::string::npos ? 'x' : ',';
  const std::vector<int64_t> values = splitInts(text, option, sep, expected);
  TG_USER_CHECK(values.size() == static_cast<size_t>(std::count(dims.begin(), dims.end(), ',')) + 1)
      << option << ": expected " << expected << ", got '" << text << "'";
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
