// nncosim.Model: a model loaded by path (nncosim-model JSON, one test of a conformance
// vector file, .tflite: frontend/model_source.h, as `nncosim run` loads them) or the
// embedded demo network, with the input values that came with it; info() is what
// `nncosim info` prints, as a dict; prepare() compiles it for a backend.
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "hal/model.h"
#include "hal/tensor_value.h"

namespace nncosim::python {

namespace py = pybind11;

struct Model {
  std::string name;  // the path, "path:test" for a vector file's test, or the demo's name
  hal::Model model;
  std::vector<hal::TensorValue> inputs;  // a vector file's or the demo's; else empty
  bool expectFailure = false;            // a vector file's test the driver must reject
};

}  // namespace nncosim::python
