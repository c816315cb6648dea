// nncosim.difftest(...): `nncosim difftest` from Python: random NPU-eligible layers on a
// backend with an NPU and on the reference, compared bit for bit, returning the summary
// as a dict. The run is a worker process's (python/worker_host.h): its SoC is its own, of
// the configuration asked for, and its jobs never touch the device memory this process's
// prepared models keep on their SoC.
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/stl.h>

#include "frontend/backends.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/json_objects.h"
#include "python/settings.h"
#include "python/worker_host.h"
#include "verify/difftest/difftest.h"

namespace nncosim::python {
namespace {

namespace dt = verify::difftest;
using nlohmann::json;

json layerJson(const dt::LayerResult& r) {
  return {{"index", r.index},
          {"seed", r.seed},
          {"operation", std::string(hal::toString(r.type))},
          {"outcome", dt::toString(r.outcome)},
          {"description", r.description},
          {"detail", r.detail},
          {"mapping", r.mapping},
          {"npu_cycles", r.npuCycles},
          {"quant16x8", r.quant16x8}};
}

json summaryJson(const dt::DifftestSummary& s, size_t maxFailures) {
  json byOp = json::object();
  for (const auto& [type, t] : s.byOperation)
    byOp[std::string(hal::toString(type))] = {
        {"layers", t.layers},         {"npu_checked", t.npuChecked}, {"fallbacks", t.fallbacks},
        {"mismatches", t.mismatches}, {"errors", t.errors},          {"cycles", t.cycles}};
  json failures = json::array();
  for (const auto& f : s.failures) failures.push_back(layerJson(f));
  std::ostringstream text;
  s.print(text, maxFailures);
  return {{"ok", s.ok()},
          {"npu_backend", s.npuBackend},
          {"ref_backend", s.refBackend},
          {"seed", s.seed},
          {"first", s.first},
          {"layers", s.layers},
          {"npu_checked", s.npuChecked},
          {"matched", s.matched},
          {"fallbacks", s.fallbacks},
          {"mismatches", s.mismatches},
          {"errors", s.errors},
          {"constant_outputs", s.constantOutputs},
          {"quant16x8_checked", s.quant16x8Checked},
          {"npu_cycles", s.npuCycles},
          {"output_elements", s.outputElements},
          {"seconds", s.seconds},
          {"npu_seconds", s.npuSeconds},
          {"ref_seconds", s.refSeconds},
          {"by_operation", byOp},
          {"failures", failures},
          {"fallback_reasons", s.fallbackReasons},
          {"text", text.str()}};
}

std::string layerTypeNames() {
  std::string s;
  for (hal::OperationType t : dt::randomLayerTypes())
    s += (s.empty() ? "" : ", ") + std::string(hal::toString(t));
  for (hal::OperationType t : dt::onRequestLayerTypes()) s += ", " + std::string(hal::toString(t));
  return s;
}

// ops: a list of names or one comma-separated string, as --op takes them; checked here, so
// the worker gets names it knows.
std::vector<std::string> layerTypes(const py::object& ops) {
  std::vector<std::string> names;
  if (ops.is_none()) return {};
  auto split = [&names](const std::string& list) {
    std::stringstream ss(list);
    for (std::string n; std::getline(ss, n, ',');)
      if (!n.empty()) names.push_back(n);
  };
  if (py::isinstance<py::str>(ops))
    split(ops.cast<std::string>());
  else
    for (auto item : ops) split(py::str(item).cast<std::string>());
  for (const auto& n : names) {
    auto t = hal::operationTypeFromString(n);
    if (!t || !dt::isRandomLayerType(*t))
      throw Error("difftest: ops: '" + n + "' is not one of " + layerTypeNames());
  }
  return names;
}

// In the worker: the request's options as `nncosim difftest` would set them, the summary as
// JSON.
std::string difftestJob(const std::string& request) {
  const auto q = json::parse(request);
  dt::DifftestOptions opt;
  opt.seed = q.at("seed");
  opt.first = q.at("first");
  opt.layers = q.at("layers");
  opt.preference = *frontend::preferenceFromName(q.at("preference"));
  for (const auto& n : q.at("ops"))
    opt.generator.types.push_back(*hal::operationTypeFromString(n.get<std::string>()));
  opt.generator.maxSpatial = q.at("max_spatial");
  opt.generator.maxChannels = q.at("max_channels");
  opt.generator.maxBatch = q.at("max_batch");
  opt.generator.quant16x8 = q.at("quant16x8");
  frontend::BackendOptions bo;
  bo.preference = opt.preference;
  bo.convMapping = *frontend::convMappingFromName(q.at("mapping"));
  bo.socSettings = q.at("config").get<std::vector<std::string>>();
  bo.socConfigFile = q.at("config_file");
  const std::string backend = q.at("backend"), mapping = q.at("mapping");
  auto npu = frontend::openBackend(backend, bo);
  if (!npu) throw Error(npu.error());
  driver::NnapiDriver reference(nullptr);
  const dt::DifftestDrivers drivers{
      (*npu)->driver(),
      bo.convMapping == driver::ConvMapping::kAuto ? backend : backend + " (" + mapping + ")",
      reference, "ref"};
  return summaryJson(dt::runDifftest(drivers, opt), q.at("max_failures")).dump();
}

py::object difftest(uint64_t layers, uint64_t seed, uint64_t first,
                    const std::optional<std::string>& backendArg, const py::object& ops,
                    const std::string& mapping, const std::string& preference, uint32_t maxSpatial,
                    uint32_t maxChannels, uint32_t maxBatch, const std::optional<double>& quant16x8,
                    const py::object& config, const py::object& configFile, size_t maxFailures) {
  const std::string backend = backendArg.value_or(frontend::backendExists("sim") ? "sim" : "isa");
  if (backend != "sim" && backend != "isa")
    throw Error("difftest: backend must be sim or isa (available: " + frontend::backendNames() +
                ")");
  if (!frontend::backendExists(backend))
    throw Error("difftest: backend '" + backend +
                "' is not built (available: " + frontend::backendNames() + ")");
  const auto convMapping = frontend::convMappingFromName(mapping);
  if (!convMapping)
    throw Error("difftest: mapping: unknown mapping '" + mapping + "' (" +
                frontend::convMappingNames() + ")");
  const auto pref = frontend::preferenceFromName(preference);
  if (!pref)
    throw Error(
        "difftest: preference must be low_power, fast_single_answer or "
        "sustained_speed, not '" +
        preference + "'");
  const double share = quant16x8.value_or(dt::GeneratorOptions{}.quant16x8);
  if (!(share >= 0 && share <= 1)) throw Error("difftest: quant16x8 must be between 0 and 1");
  if (maxSpatial < 1 || maxChannels < 1 || maxBatch < 1)
    throw Error("difftest: max_spatial, max_channels and max_batch must be >= 1");
  const json request = {
      {"layers", layers},
      {"seed", seed},
      {"first", first},
      {"backend", backend},
      {"ops", layerTypes(ops)},
      {"mapping", mapping},
      {"preference", preference},
      {"max_spatial", maxSpatial},
      {"max_channels", maxChannels},
      {"max_batch", maxBatch},
      {"quant16x8", share},
      {"config", keyValues(config, "config")},
      {"config_file",
       configFile.is_none() ? std::string() : py::str(configFile).cast<std::string>()},
      {"max_failures", maxFailures}};
  const std::string text = runJob("difftest", request.dump(), "difftest");
  return toPython(json::parse(text));
}

}  // namespace

void bindDifftest(py::module_& m) {
  registerJob("difftest", &difftestJob);
  m.def("difftest", &difftest, py::arg("layers") = 100, py::arg("seed") = 1, py::arg("first") = 0,
        py::arg("backend") = py::none(), py::arg("ops") = py::none(), py::arg("mapping") = "auto",
        py::arg("preference") = "fast_single_answer", py::arg("max_spatial") = 20,
        py::arg("max_channels") = 48, py::arg("max_batch") = 3, py::arg("quant16x8") = py::none(),
        py::arg("config") = py::none(), py::arg("config_file") = py::none(),
        py::arg("max_failures") = 50,
        "random NPU-eligible layers on backend (sim, else isa) and on the reference, compared "
        "bit for bit, as `nncosim difftest` runs them, in a worker process; returns the summary "
        "(ok, layers, npu_checked, matched, fallbacks, mismatches, errors, npu_cycles, "
        "by_operation, failures, fallback_reasons, text: the printed summary)");
}

}  // namespace nncosim::python
