// JSON values as Python objects: the report, info and summary dicts the module returns
// are the CLI's JSON documents, so the two front ends cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace nncosim::python {

namespace py = pybind11;

// Objects -> dict, arrays -> list, numbers -> int or float, null -> None.
py::object toPython(const nlohmann::json& value);

}  // namespace nncosim::python
