#pragma once
#include <iosfwd>

namespace tilegrid::cli {

// Runs the tilegrid command line. Returns the exit status: 0 on success, 2 for bad input (with a
// message on `err` naming the problem), 3 for an internal error.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace tilegrid::cli
