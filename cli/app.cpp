#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/banks_command.h"
#include "cli/grid_command.h"
#include "cli/kernel_commands.h"
#include "cli/plan_command.h"
#include "cli/run_command.h"
#include "ir/error.h"
#include "runtime/compiler.h"
#include "runtime/cuda_toolkit.h"
#include "runtime/driver.h"

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

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app("tilegrid: schedule dense GEMMs with an IterDomain IR and print the CUDA they need", "tilegrid");
  app.require_subcommand(1);
  bool version = false;
  app.add_flag("--version", version, "Print the version and the CUDA toolkit found");

  GridOptions grid_options;
  CLI::App* grid = addGridCommand(app, grid_options);
  PlanCommandOptions plan_options;
  CLI::App* plan = addPlanCommand(app, plan_options);
  BanksOptions banks_options;
  CLI::App* banks = addBanksCommand(app, banks_options);
  EmitOptions emit_options;
  CLI::App* emit = addEmitCommand(app, emit_options);
  CompileCommandOptions compile_options;
  CLI::App* compile = addCompileCommand(app, compile_options);
  RunCommandOptions run_options;
  CLI::App* run_cmd = addRunCommand(app, run_options);

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
    if (grid->parsed()) runGridCommand(grid_options, out);
    if (plan->parsed()) runPlanCommand(plan_options, out);
    if (banks->parsed()) runBanksCommand(banks_options, out);
    if (emit->parsed()) runEmitCommand(emit_options, out);
    if (compile->parsed()) runCompileCommand(compile_options, out);
    if (run_cmd->parsed()) return runRunCommand(run_options, out);
    return 0;
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "tilegrid: error: " << e.what() << "\nRun 'tilegrid --help' for the commands and options.\n";
    return 2;
  } catch (const runtime::CompileError& e) {
    err << "tilegrid: " << e.what() << "\n";
    return 3;
  } catch (const UserError& e) {
    err << "tilegrid: error: " << e.what() << "\n";
    return 2;
  } catch (const runtime::CudaError& e) {
    err << "tilegrid: CUDA error: " << e.what() << "\n";
    return 3;
  } catch (const InternalError& e) {
    err << "tilegrid: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    err << "tilegrid: unexpected error: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace tilegrid::cli
