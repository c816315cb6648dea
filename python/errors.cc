#include "python/errors.h"

namespace nncosim::python {
namespace {

// The classes live as long as the interpreter: module objects are never unloaded.
PyObject* gError = nullptr;
PyObject* gInputError = nullptr;
PyObject* gMismatchError = nullptr;

PyObject* newClass(const char* name, const char* doc, PyObject* bases) {
  PyObject* cls = PyErr_NewExceptionWithDoc(name, doc, bases, nullptr);
  if (!cls) throw py::error_already_set();
  return cls;
}

}  // namespace

void registerErrors(py::module_& m) {
  gError = newClass("nncosim.Error",
                    "A failure the nncosim command reports: a model that does not load or "
                    "prepare, a backend that does not open, an execution that fails.",
                    PyExc_RuntimeError);
  py::tuple inputBases = py::make_tuple(py::handle(gError), py::handle(PyExc_ValueError));
  gInputError = newClass("nncosim.InputError",
                         "An input refused before the driver sees it: not a numpy.ndarray, "
                         "wrong dtype or shape, not C-contiguous, or a wrong count or name.",
                         inputBases.ptr());
  gMismatchError = newClass("nncosim.MismatchError",
                            "check=True found NPU steps that differ from the reference; "
                            "`result` holds the run (outputs and report).",
                            gError);
  m.attr("Error") = py::handle(gError);
  m.attr("InputError") = py::handle(gInputError);
  m.attr("MismatchError") = py::handle(gMismatchError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(gInputError, e.what());
    } catch (const Error& e) {
      PyErr_SetString(gError, e.what());
    }
  });
}

void raiseMismatch(const std::string& message, py::object result) {
  py::object e = py::reinterpret_borrow<py::object>(gMismatchError)(message);
  e.attr("result") = std::move(result);
  PyErr_SetObject(gMismatchError, e.ptr());
  throw py::error_already_set();
}

}  // namespace nncosim::python
