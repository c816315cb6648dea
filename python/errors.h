// The exceptions the module raises, as Python classes: nncosim.Error (a RuntimeError) for
// everything the CLI reports as a failure, carrying the CLI's message; nncosim.InputError
// (also a ValueError) for inputs refused before the driver sees them (wrong dtype, shape,
// layout, count or name); nncosim.MismatchError (an Error) when check=True found an NPU
// step that differs from the reference, with the run in its `result`.
#pragma once

#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

#include "hal/result.h"

namespace nncosim::python {

namespace py = pybind11;

// Thrown in C++, translated to nncosim.Error.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Translated to nncosim.InputError.
struct InputError : Error {
  using Error::Error;
};

// The value of `r`, or Error with its message (after `prefix`, e.g. "model.json: ").
template <typename T>
T valueOrThrow(hal::Result<T> r, const std::string& prefix = "") {
  if (!r) throw Error(prefix + r.error());
  return std::move(r).value();
}
inline void okOrThrow(const hal::Status& s, const std::string& prefix = "") {
  if (!s.ok()) throw Error(prefix + s.error());
}

// Creates the classes in `m` and installs the C++ -> Python translation.
void registerErrors(py::module_& m);
// Raises nncosim.MismatchError(message) with `result` as its attribute.
[[noreturn]] void raiseMismatch(const std::string& message, py::object result);

}  // namespace nncosim::python
