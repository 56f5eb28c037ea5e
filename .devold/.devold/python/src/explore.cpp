// What needs no GPU: traversals, plans, generated source, bank maps, epilogue descriptions.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>

#include "bindings.h"
#include "cli/banks_command.h"
#include "cli/grid_command.h"
#include "cli/kernel_commands.h"
#include "cli/plan_command.h"
#include "cli/plan_options.h"
#include "tilegrid/ir/epilogue.h"
#include "tilegrid/ir/error.h"

namespace tilegrid::python {
namespace {

namespace py = pybind11;

// The planning options, by their Python names: the CLI's flags with '_' for '-'. Values arrive as
// the text the CLI would take (the package formats tuples and booleans, on/off), and go through the
// CLI's own option definitions (addPlanOptions), so both accept and refuse the same things.
cli::PlanOptions planOptions(const std::map<std::string, std::string>& given) {
  cli::PlanOptions options;
  CLI::App app;
  cli::addPlanOptions(app, options);
  std::vector<std::string> args;
  for (const auto& [name, value] : given) {
    std::string flag = "--" + name;
    for (char& ch : flag) ch = ch == '_' ? '-' : ch;
    if (app.get_option_no_throw(flag) == nullptr) throw py::type_error("unexpected keyword argument '" + name + "'");
    args.push_back(flag + "=" + value);
  }
  // CLI11 takes the arguments last first.
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    throw UserError(e.what());
  }
  return options;
}

py::array_t<int64_t> grid(int64_t tiles_m, int64_t tiles_n, const std::string& factors, const std::string& method,
                          const std::string& group) {
  cli::GridOptions options;
  options.tiles = std::to_string(tiles_m) + "," + std::to_string(tiles_n);
  options.factor = factors;
  options.method = method;
  options.group = group;
  const cli::GridListing listing = cli::listGrid(options);
  py::array_t<int64_t> out({static_cast<py::ssize_t>(listing.ctas.size()), py::ssize_t{4}});
  auto view = out.mutable_unchecked<2>();
  for (size_t i = 0; i < listing.ctas.size(); ++i) {
    const cli::GridCta& c = listing.ctas[i];
    const auto row = static_cast<py::ssize_t>(i);
    view(row, 0) = c.cta;
    view(row, 1) = c.tile_m;
    view(row, 2) = c.tile_n;
    view(row, 3) = c.valid ? 1 : 0;
  }
  return out;
}

std::string plan(const std::map<std::string, std::string>& given, const std::string& format) {
  cli::PlanCommandOptions options{planOptions(given), format};
  std::ostringstream out;
  cli::runPlanCommand(options, out);
  return out.str();
}

std::string emit(const std::map<std::string, std::string>& given) {
  cli::EmitOptions options{planOptions(given), ""};
  std::ostringstream out;
  cli::runEmitCommand(options, out);
  return out.str();
}

std::string banks(const std::string& layout, int64_t elem_bytes, int64_t threads, int64_t vec,
                  const std::string& swizzle, const std::string& format) {
  cli::BanksOptions options;
  options.layout = layout;
  options.elem_bytes = std::to_string(elem_bytes);
  options.threads = std::to_string(threads);
  options.vec = std::to_string(vec);
  options.swizzle = swizzle;
  options.format = format;
  std::ostringstream out;
  cli::runBanksCommand(options, out);
  return out.str();
}

// What an epilogue reads and writes, so that the package can ask for exactly those operands.
py::dict epilogueInfo(const std::string& text) {
  const ir::Epilogue e = ir::Epilogue::parse(text);
  py::dict d;
  d["text"] = e.toString();
  d["identity"] = e.isIdentity();
  d["bias"] = e.reads(ir::EpOp::BiasM) ? py::str("m") : e.reads(ir::EpOp::BiasN) ? py::str("n") : py::object(py::none());
  d["c"] = e.reads(ir::EpOp::C);
  d["residual"] = e.reads(ir::EpOp::Residual);
  d["alpha"] = e.reads(ir::EpOp::Alpha);
  d["beta"] = e.reads(ir::EpOp::Beta);
  d["aux"] = e.aux().has_value();
  return d;
}

}  // namespace

void bindExplore(py::module_& m) {
  m.def("grid", &grid, py::arg("tiles_m"), py::arg("tiles_n"), py::arg("factors"), py::arg("method"), py::arg("group"),
        "Every launched CTA of a traversal, in launch order: rows of (cta, tile_m, tile_n, valid).");
  m.def("plan", &plan, py::arg("options"), py::arg("format"), "The plan, as `tilegrid plan` prints it (json or text).");
  m.def("emit", &emit, py::arg("options"), "The CUDA source of the scheduled kernel.");
  m.def("banks", &banks, py::arg("layout"), py::arg("elem_bytes"), py::arg("threads"), py::arg("vec"),
        py::arg("swizzle"), py::arg("format"), "The bank map, as `tilegrid banks` prints it.");
  m.def("epilogue_info", &epilogueInfo, py::arg("text"), "What an epilogue reads and writes.");
}

}  // namespace tilegrid::python
