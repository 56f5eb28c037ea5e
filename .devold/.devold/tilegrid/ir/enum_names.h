#pragma once
// Parsing an enum from its printed name, with one error format for every enum: the unknown text
// and the names that are allowed.
#include <initializer_list>
#include <string>

#include "tilegrid/ir/check.h"

namespace tilegrid {

template <typename Enum, typename ToString>
Enum parseEnum(const std::string& text, std::initializer_list<Enum> values, ToString to_string, const char* what) {
  std::string allowed;
  size_t i = 0;
  for (Enum v : values) {
    if (text == to_string(v)) return v;
    allowed += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + std::string(to_string(v));
    ++i;
  }
  TG_USER_ERROR() << "unknown " << what << " '" << text << "': expected " << allowed;
  return *values.begin();
}

}  // namespace tilegrid
