#include "bindings.h"

PYBIND11_MODULE(_tilegrid, m) {
  m.doc() = "tilegrid's extension module; use the tilegrid package, which wraps it";
  tilegrid::python::bindErrors(m);
  tilegrid::python::bindExplore(m);
  tilegrid::python::bindTensors(m);
  tilegrid::python::bindRun(m);
}
