// The inputs argument of run(): arrays by position (a list or tuple, or one array for a
// model with one input), by input operand name (a dict; an int key is a position), or
// None for the values that came with the model (a vector file's test, the demo).
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "hal/model.h"
#include "hal/tensor_value.h"

namespace nncosim::python {

namespace py = pybind11;

// One value per model input, each checked by tensorFromArray; InputError for a wrong
// count, an unknown or missing name, or a bad array. `modelName` prefixes messages.
std::vector<hal::TensorValue> bindInputs(py::handle inputs, const hal::Model& model,
                                         const std::vector<hal::TensorValue>& ownInputs,
                                         const std::string& modelName);

// "input 1 ('image')", or "input 1" for an unnamed operand.
std::string inputLabel(const hal::Model& model, size_t position);

}  // namespace nncosim::python
