// The extension module nncosim._nncosim, which the package nncosim (nncosim/__init__.py)
// re-exports: models in (load, load_all, demo), NumPy arrays out (Model.prepare(...).run),
// reports as dicts and pictures, testbenches and difftests. Calls hold the GIL: the
// simulated SoC is one per process and not thread-safe, so one thread at a time drives it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "frontend/backends.h"
#include "hal/operand_type.h"
#include "python/arrays.h"
#include "python/bindings.h"
#include "python/errors.h"

namespace {

namespace py = pybind11;
using namespace nncosim;

// For the tests: an array through the checks and conversions run() applies, as an input
// of `type` and `dimensions`, and back out as an output of that type.
py::array roundTrip(py::handle array, const std::string& type,
                    const std::vector<uint32_t>& dimensions) {
  auto t = hal::operandTypeFromString(type);
  if (!t) throw python::Error("unknown operand type '" + type + "'");
  hal::Operand o;
  o.type = *t;
  o.dimensions = dimensions;
  return python::arrayFromTensor(python::tensorFromArray(array, o, "value"), "value");
}

}  // namespace

PYBIND11_MODULE(_nncosim, m) {
  m.doc() = "nncosim: an NNAPI-style driver and the simulated NPU it drives (docs/python.md)";
  python::registerErrors(m);
  python::bindResult(m);
  python::bindPrepared(m);
  python::bindModel(m);
  python::bindTestbench(m);
  python::bindDifftest(m);
  py::list backends;
  for (const char* b : {"ref", "isa", "sim"})
    if (frontend::backendExists(b)) backends.append(b);
  m.attr("backends") = backends;
  m.def("_roundtrip", &roundTrip, py::arg("array"), py::arg("type"), py::arg("dimensions"));
}
