#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <type_traits>

#include "cli/banks_command.h"
#include "cli/bench_command.h"
#include "cli/grid_command.h"
#include "cli/kernel_commands.h"
#include "cli/kernels_command.h"
#include "cli/plan_command.h"
#include "cli/run_command.h"
#include "cli/sweep_command.h"
#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/compiler.h"
#include "tilegrid/runtime/cuda_toolkit.h"
#include "tilegrid/runtime/driver.h"

#ifndef TILEGRID_VERSION
#define TILEGRID_VERSION "unknown"
#endif

namespace tilegrid::cli {
namespace {

std::string versionText() {
  std::string text = std::string("tilegrid ") + TILEGRID_VERSION;
  if (auto toolkit = runtime::findCudaToolkit()) {
    text += "\nCUDA toolkit " + toolkit->versionString() + " at " + toolkit->root;
    text += "\nNVRTC " + runtime::nvrtcVersion();
  } else {
    text += "\nCUDA toolkit: not found (set CUDA_HOME)";
  }
  return text;
}

// Registers a subcommand: its options live as long as the parse, and CLI11 runs it from the
// subcommand's callback. A run function returns its exit status, or nothing for 0.
template <typename Options, typename Add, typename Run>
void command(CLI::App& app, Add add, Run run_command, std::ostream& out, int& status) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = add(app, *options);
  cmd->callback([options, run_command, &out, &status] {
    if constexpr (std::is_same_v<std::invoke_result_t<Run, const Options&, std::ostream&>, int>) {
      status = run_command(*options, out);
    } else {
      run_command(*options, out);
    }
  });
}

}  // namespace

namespace {

// An error message as printed: control characters (other than line breaks) escaped, and every line cut
// to kMaxLine characters. Messages echo what the user gave, which may be of any length and any bytes.
std::string printable(const std::string& message) {
  constexpr size_t kMaxLine = 400;
  std::string out;
  size_t line = 0;
  for (size_t i = 0; i < message.size(); ++i) {
    const auto c = static_cast<unsigned char>(message[i]);
    if (c == '\n') {
      out += '\n';
      line = 0;
      continue;
    }
    if (line == kMaxLine) {
      const size_t end = message.find('\n', i);
      const size_t rest = (end == std::string::npos ? message.size() : end) - i;
      out += fmt::format("... ({} more characters)", rest);
      i += rest - 1;
      ++line;
      continue;
    }
    if (line > kMaxLine) continue;
    out += c < 0x20 || c == 0x7f ? fmt::format("\\x{:02x}", c) : std::string(1, static_cast<char>(c));
    ++line;
  }
  return out;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app("tilegrid: schedule dense GEMMs with an IterDomain IR and print the CUDA they need", "tilegrid");
  app.require_subcommand(1);
  bool version = false;
  app.add_flag("--version", version, "Print the version and the CUDA toolkit found");

  int status = 0;
  command<GridOptions>(app, addGridCommand, runGridCommand, out, status);
  command<PlanCommandOptions>(app, addPlanCommand, runPlanCommand, out, status);
  command<BanksOptions>(app, addBanksCommand, runBanksCommand, out, status);
  command<EmitOptions>(app, addEmitCommand, runEmitCommand, out, status);
  command<CompileCommandOptions>(app, addCompileCommand, runCompileCommand, out, status);
  command<KernelsOptions>(app, addKernelsCommand, runKernelsCommand, out, status);
  command<RunCommandOptions>(app, addRunCommand, runRunCommand, out, status);
  command<SweepCommandOptions>(app, addSweepCommand, runSweepCommand, out, status);
  command<BenchOptions>(app, addBenchCommand, runBenchCommand, out, status);

  try {
    // --version alone must work without a subcommand.
    if (argc == 2 && std::string(argv[1]) == "--version") {
      out << versionText() << "\n";
      return 0;
    }
    // CLI11 would only say "A subcommand is required" for a misspelt one: name it instead.
    if (argc >= 2 && argv[1][0] != '-') {
      std::string known;
      bool found = false;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        known += (known.empty() ? "" : ", ") + sub->get_name();
        found = found || sub->get_name() == argv[1];
      }
      TG_USER_CHECK(found) << "unknown command '" << argv[1] << "': expected one of " << known;
    }
    app.parse(argc, argv);
    // Output that did not reach its destination (a full disk, a closed pipe) is a failure.
    out.flush();
    TG_USER_CHECK(out.good()) << "writing standard output failed: " << std::strerror(errno);
    return status;
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "tilegrid: error: " << printable(e.what()) << "\nRun 'tilegrid --help' for the commands and options.\n";
    return 2;
  } catch (const runtime::CompileError& e) {
    err << "tilegrid: " << printable(e.what()) << "\n";
    return 3;
  } catch (const UserError& e) {
    err << "tilegrid: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const runtime::CudaError& e) {
    err << "tilegrid: CUDA error: " << printable(e.what()) << "\n";
    return 3;
  } catch (const InternalError& e) {
    err << "tilegrid: " << printable(e.what()) << "\n";
    return 3;
  } catch (const std::exception& e) {
    err << "tilegrid: unexpected error: " << printable(e.what()) << "\n";
    return 3;
  }
}

}  // namespace tilegrid::cli
