// The parts of the module, each registering its classes and functions (module.cc calls
// them in order: errors first, the classes before the functions that return them).
#pragma once

#include <pybind11/pybind11.h>

namespace nncosim::python {

namespace py = pybind11;

void bindModel(py::module_& m);
void bindPrepared(py::module_& m);
void bindResult(py::module_& m);
void bindTestbench(py::module_& m);
void bindDifftest(py::module_& m);

}  // namespace nncosim::python
