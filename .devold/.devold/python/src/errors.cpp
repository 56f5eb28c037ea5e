#include <regex>
#include <string>

#include "bindings.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/compiler.h"
#include "tilegrid/runtime/errors.h"

namespace tilegrid::python {
namespace {

// The library's messages name options as the CLI spells them (--cta-tile); Python callers pass
// them as keyword arguments (cta_tile).
std::string pythonNames(const std::string& message) {
  static const std::regex flag("--([a-z][a-z0-9]*(-[a-z0-9]+)*)");
  std::string out;
  auto begin = std::sregex_iterator(message.begin(), message.end(), flag);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += message.substr(last, static_cast<size_t>(it->position()) - last);
    std::string name = (*it)[1].str();
    for (char& ch : name) ch = ch == '-' ? '_' : ch;
    out += name;
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + message.substr(last);
}

}  // namespace

void bindErrors(pybind11::module_& m) {
  namespace py = pybind11;
  // Registered translators are tried newest first; these types are unrelated, so order is free.
  py::register_exception<runtime::NoDeviceError>(m, "NoDeviceError", PyExc_RuntimeError);
  py::register_exception<runtime::CompileError>(m, "CompileError", PyExc_RuntimeError);
  py::register_exception<runtime::CudaError>(m, "CudaError", PyExc_RuntimeError);
  py::register_exception<InternalError>(m, "InternalError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      PyErr_SetString(PyExc_ValueError, pythonNames(e.what()).c_str());
    }
  });
}

}  // namespace tilegrid::python
