#pragma once
// Two kinds of failure, kept apart as Halide does:
//  * UserError: the caller asked for something impossible (bad size, factor, dtype...). The message
//    says what was wrong and what is allowed.
//  * InternalError: an invariant of tilegrid itself broke. The message says "bug" so nobody wastes
//    time checking their own input.
// Both are raised through a streaming macro so that messages are built only on failure:
//   TG_USER_CHECK(factor >= 1) << "split factor must be >= 1, got " << factor;
#include <sstream>
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

namespace detail {

// Collects a message and throws from its destructor, at the end of the full expression that built it.
class ErrorReport {
 public:
  ErrorReport(const char* file, int line, const char* condition, bool user);
  ErrorReport(const ErrorReport&) = delete;
  ErrorReport& operator=(const ErrorReport&) = delete;
  ~ErrorReport() noexcept(false);

  template <typename T>
  ErrorReport& operator<<(const T& value) {
    message_ << value;
    return *this;
  }

 private:
  std::ostringstream message_;
  const char* file_;
  int line_;
  const char* condition_;
  bool user_;
};

}  // namespace detail
}  // namespace tilegrid

#define TG_USER_CHECK(cond) \
  if (cond) {               \
  } else                    \
    ::tilegrid::detail::ErrorReport(__FILE__, __LINE__, #cond, true)

#define TG_INTERNAL_CHECK(cond) \
  if (cond) {                   \
  } else                        \
    ::tilegrid::detail::ErrorReport(__FILE__, __LINE__, #cond, false)

#define TG_USER_ERROR() ::tilegrid::detail::ErrorReport(__FILE__, __LINE__, nullptr, true)
#define TG_INTERNAL_ERROR() ::tilegrid::detail::ErrorReport(__FILE__, __LINE__, nullptr, false)
