#include "python/prepared_object.h"

#include <chrono>
#include <vector>

#include <pybind11/stl.h>

#include "hal/validation.h"
#include "ops/executor.h"
#include "python/arrays.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/inputs.h"
#include "python/run_result.h"
#include "python/settings.h"
#include "python/shared_backends.h"

namespace nncosim::python {
namespace {

// The output operand's name of output k, "" when unnamed.
const std::string& outputName(const hal::Model& m, size_t k) {
  return m.main.operands[m.main.outputIndexes[k]].name;
}

Result run(Prepared& p, const py::object& inputs, bool check) {
  const Model& pm = *p.model;
  std::vector<hal::TensorValue> values = bindInputs(inputs, pm.model, pm.inputs, pm.name);
  driver::NnapiDriver& drv = p.backend->driver();
  const uint64_t modelChecks0 = hal::modelValidations();
  const uint64_t signatureChecks0 = ops::signatureValidations().declared;
  driver::ExecuteOptions xo;
  xo.crossCheck = check;
  const auto t0 = std::chrono::steady_clock::now();
  auto executed = p.prepared->execute(values, xo);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!executed) throw Error(pm.name + ": execution failed: " + executed.error());

  auto record = std::make_shared<RunRecord>();
  record->result = std::move(*executed);
  record->operations = pm.model.main.operations.size();
  frontend::RunSummary& sum = record->summary;
  sum.model = pm.name;
  sum.backend = p.backend->name();
  sum.preference = p.preference;
  sum.soc = p.backend->socDescription();
  sum.clockMHz = drv.clockMHz();
  sum.dramBytesPerCycle = p.backend->dramBytesPerCycle();
  sum.wallSeconds = wall;
  sum.checked = check;
  sum.modelValidations = p.modelValidations + hal::modelValidations() - modelChecks0;
  sum.signatureValidations =
      p.signatureValidations + ops::signatureValidations().declared - signatureChecks0;
  sum.outputs = record->result.outputs;
  if (drv.device()) {  // the ref backend has no steps to report, as in the CLI
    sum.report = &record->result.report;
    sum.commands = record->result.commands;
    const auto cfg = drv.device()->config();
    sum.rows = cfg.rows;
    sum.cols = cfg.cols;
  }
  record->json = frontend::runReportJson(sum);

  Result r;
  const auto& outs = record->result.outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    py::array a = arrayFromTensor(outs[k], pm.name + ": output " + std::to_string(k));
    r.outputs.append(a);
    if (k < pm.model.main.outputIndexes.size() && !outputName(pm.model, k).empty())
      r.namedOutputs[py::str(outputName(pm.model, k))] = a;
  }
  r.report.run = record;
  if (check && record->result.report.mismatches) {
    // The lines `nncosim run --check` prints before it exits 1.
    std::string message;
    for (const auto& s : record->result.report.steps)
      if (!s.mismatch.empty())
        message += (message.empty() ? "" : "\n") + std::string("MISMATCH step ") +
                   std::to_string(s.operation) + " (" + std::string(hal::toString(s.type)) +
                   "): " + s.mismatch;
    raiseMismatch(message, py::cast(std::move(r)));
  }
  return r;
}

}  // namespace

std::shared_ptr<Prepared> prepareModel(const std::shared_ptr<Model>& model,
                                       const std::string& backend, const std::string& preference,
                                       const py::object& config, const py::object& configFile,
                                       const py::object& host, bool fuse) {
  const auto pref = frontend::preferenceFromName(preference);
  if (!pref)
    throw Error("preference must be low_power, fast_single_answer or sustained_speed, not '" +
                preference + "'");
  BackendRequest req;
  req.name = backend;
  req.socSettings = keyValues(config, "config");
  if (!configFile.is_none()) req.socConfigFile = py::str(configFile).cast<std::string>();
  req.hostSettings = keyValues(host, "host");
  auto p = std::make_shared<Prepared>();
  const uint64_t modelChecks0 = hal::modelValidations();
  const uint64_t signatureChecks0 = ops::signatureValidations().declared;
  p->backend = sharedBackend(req);
  p->model = model;
  p->preference = preference;
  auto prepared = p->backend->driver().prepareModel(model->model, *pref, fuse);
  if (!prepared) throw Error(model->name + ": " + prepared.error());
  p->prepared = std::move(*prepared);
  p->modelValidations = hal::modelValidations() - modelChecks0;
  p->signatureValidations = ops::signatureValidations().declared - signatureChecks0;
  return p;
}

void bindPrepared(py::module_& m) {
  py::class_<Prepared, std::shared_ptr<Prepared>>(
      m, "PreparedModel", "A model compiled for a backend: Model.prepare(...).run(inputs).")
      .def("run", &run, py::arg("inputs") = py::none(), py::arg("check") = false,
           "execute: inputs as arrays by position (a list, or one array), by input name (a "
           "dict) or None for the model's own; check=True runs every NPU step on the reference "
           "too and compares bit for bit (MismatchError when one differs). Returns a Result.")
      .def_property_readonly("model", [](const Prepared& p) { return p.model; })
      .def_property_readonly("backend", [](const Prepared& p) { return p.backend->name(); })
      .def_readonly("preference", &Prepared::preference)
      .def_property_readonly(
          "soc", [](const Prepared& p) { return p.backend->socDescription(); },
          "the SoC configuration line `nncosim run` prints (sim; '' otherwise)")
      .def_property_readonly(
          "plan",
          [](const Prepared& p) -> py::object {
            const driver::ModelPlan* plan = p.prepared->plan();
            if (!plan) return py::none();
            py::dict d;
            d["arena_bytes"] = plan->arenaBytes;
            d["requested_bytes"] = plan->requestedBytes;
            return std::move(d);
          },
          "device memory of the plan: arena_bytes, and requested_bytes without reuse (None "
          "on ref)")
      .def("__repr__", [](const Prepared& p) {
        return "<nncosim.PreparedModel " + p.model->name + " on " + p.backend->name() + ", " +
               p.preference + ">";
      });
}

}  // namespace nncosim::python
