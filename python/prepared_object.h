// nncosim.PreparedModel: a model validated and compiled for a backend (the driver's
// prepareModel), and run(): execute with NumPy inputs, outputs as arrays of the output
// operands' types and the run's report, as `nncosim run` executes it.
#pragma once

#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include "driver/api/nnapi_driver.h"
#include "frontend/backends.h"
#include "python/model_object.h"

namespace nncosim::python {

namespace py = pybind11;

struct Prepared {
  // Declared first, destroyed last: the prepared model refers to the backend's driver.
  std::shared_ptr<frontend::Backend> backend;
  std::shared_ptr<const Model> model;
  std::unique_ptr<driver::PreparedModel> prepared;
  std::string preference;  // its --preference name
  // The validations the preparation ran (the driver's one per preparation), on the books
  // of every report as `nncosim run` counts them.
  uint64_t modelValidations = 0, signatureValidations = 0;
};

// Model.prepare(backend, preference, config, config_file, host); config and host are
// dicts of key -> value, as `nncosim run --set` and `--host` take them.
std::shared_ptr<Prepared> prepareModel(const std::shared_ptr<Model>& model,
                                       const std::string& backend, const std::string& preference,
                                       const py::object& config, const py::object& configFile,
                                       const py::object& host, bool fuse);

}  // namespace nncosim::python
