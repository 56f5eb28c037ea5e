#pragma once
// The checks tilegrid's sources raise errors with (not installed: the macros stay out of user code).
// A streaming macro builds its message only on failure:
//   TG_USER_CHECK(factor >= 1) << "split factor must be >= 1, got " << factor;
// TG_USER_CHECK throws UserError (the caller's input), TG_INTERNAL_CHECK InternalError (a bug).
#include <sstream>

#include "tilegrid/ir/error.h"

namespace tilegrid {
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
