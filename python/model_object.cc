#include "python/model_object.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "driver/compiler/model_stats.h"
#include "frontend/backends.h"
#include "frontend/model_source.h"
#include "hal/validation.h"
#include "ops/mac_count.h"
#include "python/arrays.h"
#include "python/bindings.h"
#include "python/errors.h"
#include "python/inputs.h"
#include "python/json_objects.h"
#include "python/prepared_object.h"
#include "verify/models/demo_network.h"

namespace nncosim::python {
namespace {

using nlohmann::json;

// `nncosim run`'s name for the model it runs without an argument.
constexpr const char* kDemoName = "demo network (embedded)";

json operandJson(const hal::Operand& o, uint32_t index) {
  json j = {{"index", index},
            {"type", std::string(hal::toString(o.type))},
            {"dtype", dtypeName(o.type)},
            {"dimensions", o.dimensions},
            {"lifetime", std::string(hal::toString(o.lifetime))},
            {"scale", o.scale},
            {"zero_point", o.zeroPoint},
            {"name", o.name}};
  if (o.channelQuant)
    j["channel_quant"] = {{"channel_dim", o.channelQuant->channelDim},
                          {"scales", o.channelQuant->scales}};
  return j;
}

// What `nncosim info` prints: every subgraph's operands and operations (with MACs), the
// totals, and the main inputs and outputs, whose dtype and dimensions run() expects.
json infoJson(const Model& pm) {
  const hal::Model& m = pm.model;
  std::string issues;
  for (const auto& issue : hal::validateModel(m))
    issues += (issues.empty() ? "" : "\n") + pm.name + ": " + issue.str();
  if (!issues.empty()) throw Error(issues);  // MAC counts index operands unchecked
  json subgraphs = json::array();
  uint64_t totalMacs = 0;
  for (int s = -1; s < static_cast<int>(m.referenced.size()); ++s) {
    const hal::Subgraph& g = m.subgraph(s);
    json operands = json::array(), operations = json::array();
    for (uint32_t i = 0; i < g.operands.size(); ++i)
      operands.push_back(operandJson(g.operands[i], i));
    for (uint32_t k = 0; k < g.operations.size(); ++k) {
      const hal::Operation& op = g.operations[k];
      const uint64_t macs = ops::macCount(m, g, op);
      totalMacs += macs;
      operations.push_back({{"index", k},
                            {"type", std::string(hal::toString(op.type))},
                            {"inputs", op.inputs},
                            {"outputs", op.outputs},
                            {"macs", macs}});
    }
    subgraphs.push_back({{"name", s < 0 ? "main" : "referenced[" + std::to_string(s) + "]"},
                         {"operands", operands},
                         {"operations", operations},
                         {"inputs", g.inputIndexes},
                         {"outputs", g.outputIndexes}});
  }
  std::map<std::string, int> types;
  for (const auto& op : m.main.operations) ++types[std::string(hal::toString(op.type))];
  json inputs = json::array(), outputs = json::array();
  for (uint32_t i : m.main.inputIndexes) inputs.push_back(operandJson(m.main.operands[i], i));
  for (uint32_t i : m.main.outputIndexes) outputs.push_back(operandJson(m.main.operands[i], i));
  return {{"name", pm.name},
          {"subgraphs", subgraphs},
          {"inputs", inputs},
          {"outputs", outputs},
          {"operation_types", types},
          {"macs", totalMacs},
          {"constant_bytes", driver::constantBytes(m)},
          {"pools", m.pools.size()},
          {"relaxed_float32_to_float16", m.relaxComputationFloat32toFloat16},
          {"quant16x8", m.quant16x8}};
}

std::shared_ptr<Model> fromNamed(frontend::NamedModel&& n) {
  auto pm = std::make_shared<Model>();
  pm->name = std::move(n.name);
  pm->model = std::move(n.model);
  pm->inputs = std::move(n.inputs);
  pm->expectFailure = n.expectFailure;
  return pm;
}

// Every model in `path`, unchecked: the driver validates a model when it prepares it
// (as `nncosim run` does), info() when it describes it.
std::vector<frontend::NamedModel> loadPath(const std::string& path) {
  return valueOrThrow(frontend::loadModels(path, frontend::ModelCheck::None));
}

std::shared_ptr<Model> load(const std::filesystem::path& file,
                            const std::optional<std::string>& test) {
  const std::string path = file.string();
  auto models = loadPath(path);
  if (test) {
    for (auto& n : models)
      if (n.name == path + ":" + *test) return fromNamed(std::move(n));
    std::string names;
    for (const auto& n : models) names += (names.empty() ? "" : ", ") + n.name;
    throw Error(path + ": no test named '" + *test + "' (it holds " + names + ")");
  }
  if (models.size() != 1)
    throw Error(path + ": holds " + std::to_string(models.size()) +
                " models; give test=NAME for one of them, or use nncosim.load_all");
  return fromNamed(std::move(models.front()));
}

}  // namespace

void bindModel(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>>(m, "Model",
                                            "A model: load(path), load_all(path) or demo().")
      .def_readonly("name", &Model::name, "the path, path:test for a vector file's test")
      .def_readonly("expect_failure", &Model::expectFailure,
                    "a vector file's test whose model the driver must reject")
      .def_property_readonly(
          "inputs",
          [](const Model& pm) {
            py::list l;
            for (size_t k = 0; k < pm.inputs.size(); ++k)
              l.append(arrayFromTensor(pm.inputs[k], pm.name + ": " + inputLabel(pm.model, k)));
            return l;
          },
          "the input values that came with the model (a vector file's, the demo's), as arrays; "
          "[] for model files")
      .def(
          "info", [](const Model& pm) { return toPython(infoJson(pm)); },
          "operands, operations (with MACs), totals (MACs, constant bytes), inputs and "
          "outputs with their dtypes: `nncosim info` as a dict")
      .def("prepare", &prepareModel, py::arg("backend") = frontend::defaultBackend(),
           py::arg("preference") = "fast_single_answer", py::arg("config") = py::none(),
           py::arg("config_file") = py::none(), py::arg("host") = py::none(),
           py::arg("fuse") = true,
           "validate and compile for a backend (sim | isa | ref; default sim, isa in builds "
           "without the hardware); preference low_power | "
           "fast_single_answer | sustained_speed; config: SoC settings as `nncosim run --set` "
           "(sim); config_file: as --config; host: host model settings as --host; fuse=False: "
           "every operation its own step, as --no-fuse")
      .def("__repr__", [](const Model& pm) {
        return "<nncosim.Model " + pm.name + ": " +
               std::to_string(pm.model.main.operations.size()) + " operations, " +
               std::to_string(pm.model.main.inputIndexes.size()) + " inputs>";
      });
  m.def("load", &load, py::arg("path"), py::arg("test") = py::none(),
        "load one model: nncosim-model JSON, .tflite, or a conformance vector file (test=NAME "
        "picks one of several tests)");
  m.def(
      "load_all",
      [](const std::filesystem::path& path) {
        std::vector<std::shared_ptr<Model>> out;
        for (auto& n : loadPath(path.string())) out.push_back(fromNamed(std::move(n)));
        return out;
      },
      py::arg("path"), "every model in a file (each test of a vector file)");
  m.def(
      "demo",
      [] {
        auto pm = std::make_shared<Model>();
        pm->name = kDemoName;
        pm->model = verify::demoNetwork();
        pm->inputs = verify::demoInputs(pm->model);
        return pm;
      },
      "the embedded demo network `nncosim run` runs without a model, with its input image");
}

}  // namespace nncosim::python
