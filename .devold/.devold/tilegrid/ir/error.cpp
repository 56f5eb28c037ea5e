#include "tilegrid/ir/check.h"

#include <exception>

namespace tilegrid::detail {

ErrorReport::ErrorReport(const char* file, int line, const char* condition, bool user)
    : file_(file), line_(line), condition_(condition), user_(user) {}

ErrorReport::~ErrorReport() noexcept(false) {
  if (user_) {
    // A user error reads as a sentence about their input; where it was raised is noise to them.
    std::string text = message_.str();
    if (text.empty() && condition_ != nullptr) text = std::string("invalid input: ") + condition_;
    if (std::uncaught_exceptions() == 0) throw UserError(text);
    return;
  }
  std::ostringstream full;
  full << "internal error (this is a bug in tilegrid) at " << file_ << ":" << line_;
  if (condition_ != nullptr) full << ": check '" << condition_ << "' failed";
  const std::string text = message_.str();
  if (!text.empty()) full << ": " << text;
  if (std::uncaught_exceptions() == 0) throw InternalError(full.str());
}

}  // namespace tilegrid::detail
