// nncosim run [MODEL]: executes a model (default: the embedded demo network) and
// reports, step by step, where each operation ran.
#include <cstring>
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "driver/backend/reference_backend.h"
#include "driver/model_stats.h"
#include "driver/models/demo_network.h"
#include "hal/half.h"
#include "hal/json_values.h"
#include "hal/validation.h"
#include "ops/executor.h"
#include "ops/shape.h"

namespace nncosim::cli {
namespace {

// --inputs FILE: {"inputs": [{"dimensions": [...], "data": [...]}, ...]} in the order of
// the model's inputs; values typed by each input operand's type.
hal::Result<std::vector<hal::TensorValue>> readInputs(const std::string& path, const hal::Model& m) {
  auto j = hal::readJsonFile(path);
  if (!j) return hal::Error{j.error()};
  auto it = j->find("inputs");
  if (it == j->end() || !it->is_array()) return hal::fail(path, ".inputs: expected an array");
  if (it->size() != m.main.inputIndexes.size())
    return hal::fail(path, ".inputs: ", it->size(), " values, the model has ", m.main.inputIndexes.size(), " inputs");
  std::vector<hal::TensorValue> out;
  for (size_t k = 0; k < it->size(); ++k) {
    const auto& o = m.main.operands[m.main.inputIndexes[k]];
    const std::string where = path + ".inputs[" + std::to_string(k) + "]";
    const auto& e = (*it)[k];
    hal::TensorValue v;
    v.type = o.type;
    v.dimensions = o.dimensions;
    if (auto d = e.find("dimensions"); d != e.end()) v.dimensions = d->get<std::vector<uint32_t>>();
    auto data = e.find("data");
    if (data == e.end()) return hal::fail(where, ".data: missing");
    auto bytes = hal::valuesToBytes(*data, o.type, where + ".data");
    if (!bytes) return hal::Error{bytes.error()};
    v.bytes = std::move(*bytes);
    out.push_back(std::move(v));
  }
  return out;
}

void printValues(const hal::TensorValue& v, size_t limit) {
  auto j = hal::bytesToValues(v.bytes.data(), v.bytes.size(), v.type);
  std::cout << "[";
  for (size_t i = 0; i < j.size() && i < limit; ++i) std::cout << (i ? ", " : "") << j[i].dump();
  if (j.size() > limit) std::cout << ", ... (" << j.size() << " values)";
  std::cout << "]";
}

}  // namespace

int cmdRun(const Args& args) {
  po::options_description desc("run options");
  std::string file, inputsPath, backend = "ref";
  desc.add_options()("model", po::value(&file), "model file (default: the embedded demo network)")(
      "inputs", po::value(&inputsPath), "JSON file of input values")(
      "backend", po::value(&backend)->default_value("ref"), "ref (software reference)");
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  int exit = 0;
  if (!parseOptions(args, "nncosim run [MODEL] [--inputs FILE] [--backend ref]", desc, pos, vm, &exit))
    return exit;
  if (backend != "ref") {
    std::cerr << "nncosim run: backend '" << backend
              << "' is not available yet: the simulated NPU backend is not built; use --backend ref\n";
    return kExitUsage;
  }

  hal::Model model;
  std::vector<hal::TensorValue> inputs;
  std::string name;
  if (file.empty()) {
    model = driver::demoNetwork();
    inputs = driver::demoInputs(model);
    name = "demo network (embedded)";
  } else {
    auto loaded = loadModels(file);
    if (!loaded) {
      std::cerr << loaded.error() << "\n";
      return kExitFailure;
    }
    if (loaded->size() != 1) {
      std::cerr << file << ": holds " << loaded->size() << " models; run takes one (use conformance for vector files)\n";
      return kExitUsage;
    }
    model = std::move(loaded->front().model);
    inputs = std::move(loaded->front().inputs);
    name = file;
  }
  if (!inputsPath.empty()) {
    auto in = readInputs(inputsPath, model);
    if (!in) {
      std::cerr << in.error() << "\n";
      return kExitFailure;
    }
    inputs = std::move(*in);
  }

  auto issues = hal::validateModel(model);
  if (!issues.empty()) {
    for (const auto& i : issues) std::cerr << name << ": " << i.str() << "\n";
    return kExitFailure;
  }
  std::cout << "model: " << name << "\n";
  std::cout << std::left << std::setw(5) << "step" << std::setw(22) << "operation" << std::setw(24) << "output"
            << std::setw(8) << "where" << std::right << std::setw(12) << "MACs" << "\n";
  uint64_t totalMacs = 0;
  const auto& g = model.main;
  for (size_t k = 0; k < g.operations.size(); ++k) {
    const auto& op = g.operations[k];
    const uint64_t macs = driver::macCount(model, g, op);
    totalMacs += macs;
    std::cout << std::left << std::setw(5) << k << std::setw(22) << hal::toString(op.type) << std::setw(24)
              << ops::toString(g.operands[op.outputs[0]].dimensions) << std::setw(8) << "cpu" << std::right
              << std::setw(12) << macs << "\n";
  }
  std::cout << "total MACs: " << totalMacs << "\n";
  if (auto op = ops::firstUnsupportedOperation(model)) {
    std::cout << "cannot execute yet: " << hal::toString(*op)
              << " has no reference implementation, and the simulated NPU backend is not built yet.\n"
                 "The model is valid; `nncosim info` describes it.\n";
    return kExitOk;
  }
  if (inputs.size() != model.main.inputIndexes.size()) {
    std::cerr << name << ": no input values (give --inputs FILE)\n";
    return kExitFailure;
  }
  driver::ReferenceBackend ref;
  std::vector<hal::TensorValue> outputs;
  if (auto st = ref.execute(model, inputs, outputs, nullptr); !st.ok()) {
    std::cerr << name << ": execution failed: " << st.error() << "\n";
    return kExitFailure;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::cout << "output " << k << " " << hal::toString(outputs[k].type) << " " << ops::toString(outputs[k].dimensions)
              << ": ";
    printValues(outputs[k], 16);
    std::cout << "\n";
  }
  std::cout << "ran on the software reference (backend ref); the NPU backend is not built yet\n";
  return kExitOk;
}

}  // namespace nncosim::cli
