#pragma once
// The extension module tilegrid._tilegrid: thin bindings over the library and the CLI's planning
// commands. The Python package (python/tilegrid/) gives them their public names and checks
// arguments the Python way; everything here takes plain values.
#include <pybind11/pybind11.h>

namespace tilegrid::python {

// Exceptions: UserError -> ValueError, the runtime's failures -> tilegrid's RuntimeError subclasses.
void bindErrors(pybind11::module_& m);
// grid, plan, emit, banks and the epilogue's description: no GPU needed.
void bindExplore(pybind11::module_& m);
// DLPack capsules read into plain values.
void bindTensors(pybind11::module_& m);
// matmul on device pointers.
void bindRun(pybind11::module_& m);

}  // namespace tilegrid::python
