#pragma once
// Runs the tilegrid command line in-process and captures its output and exit status.
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.h"

namespace tilegrid::testing {

struct CliResult {
  int status;
  std::string out, err;
};

inline CliResult runCli(std::vector<std::string> args) {
  args.insert(args.begin(), "tilegrid");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

}  // namespace tilegrid::testing
