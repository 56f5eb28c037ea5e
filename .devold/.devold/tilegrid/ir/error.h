#pragma once
// Two kinds of failure, kept apart as Halide does:
//  * UserError: the caller asked for something impossible (bad size, factor, dtype...). The message
//    says what was wrong and what is allowed.
//  * InternalError: an invariant of tilegrid itself broke. The message says "bug" so nobody wastes
//    time checking their own input.
// tilegrid's own sources raise both through the streaming checks of ir/check.h, which user code
// never sees.
#include <stdexcept>
#include <string>

namespace tilegrid {

class UserError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace tilegrid
