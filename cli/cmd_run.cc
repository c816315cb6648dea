// nncosim run [MODEL]: executes a model (default: the embedded demo network) and
// reports, step by step, where each operation ran.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>

#include <chrono>

#include "frontend/backends.h"
#include "cli/commands.h"
#include "frontend/model_source.h"
#include "cli/npy_io.h"
#include "cli/options.h"
#include "frontend/run_report.h"
#include "driver/compiler/model_stats.h"
#include "driver/isa_model/isa_interpreter.h"
#include "hal/validation.h"
#include "verify/models/demo_network.h"
#include "hal/half.h"
#include "hal/json_values.h"
#include "hal/profile.h"
#include "ops/executor.h"
#include "ops/shape.h"

namespace nncosim::cli {
namespace {

// --inputs FILE: {"inputs": [{"dimensions": [...], "data": [...]}, ...]} in the order of
// the model's inputs; values typed by each input operand's type.
hal::Result<std::vector<hal::TensorValue>> readInputs(const std::string& path,
                                                      const hal::Model& m) {
  NNC_ASSIGN_OR_RETURN(auto j, hal::readJsonFile(path));
  auto it = j.find("inputs");
  if (it == j.end() || !it->is_array()) return hal::fail(path, ".inputs: expected an array");
  if (it->size() != m.main.inputIndexes.size())
    return hal::fail(path, ".inputs: ", it->size(), " values, the model has ",
                     m.main.inputIndexes.size(), " inputs");
  std::vector<hal::TensorValue> out;
  for (size_t k = 0; k < it->size(); ++k) {
    const auto& o = m.main.operands[m.main.inputIndexes[k]];
    const std::string where = path + ".inputs[" + std::to_string(k) + "]";
    const auto& e = (*it)[k];
    if (!e.is_object()) return hal::fail(where, ": expected an object");
    hal::TensorValue v;
    v.type = o.type;
    v.dimensions = o.dimensions;
    if (auto d = e.find("dimensions"); d != e.end()) {
      if (!d->is_array()) return hal::fail(where, ".dimensions: expected an array");
      v.dimensions.clear();
      for (const auto& x : *d) {
        if (!x.is_number_unsigned() || x.get<uint64_t>() > UINT32_MAX)
          return hal::fail(where, ".dimensions: ", x.dump(), " is not a dimension");
        v.dimensions.push_back(x.get<uint32_t>());
      }
    }
    auto data = e.find("data");
    if (data == e.end()) return hal::fail(where, ".data: missing");
    NNC_ASSIGN_OR_RETURN(auto bytes, hal::valuesToBytes(*data, o.type, where + ".data"));
    v.bytes = std::move(bytes);
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

// --profile: the process's wall time by phase, from the timers of hal/profile.h (each
// layer times its own phases) and the execution report's measured host times. Children
// are indented under their phase; "rest" rows are what the phase's timers leave over.
void printProfile(std::ostream& os, const driver::ExecutionReport& rep, double executeSeconds) {
  namespace prof = hal::profile;
  auto ns = [](const char* phase) { return static_cast<double>(prof::get(phase).nanos); };
  auto calls = [](const char* phase) { return prof::get(phase).calls; };
  const double total = static_cast<double>(prof::processNanos());
  double cpu = 0;
  for (const auto& s : rep.steps) cpu += static_cast<double>(s.host.cpuNanos);
  const double upload = static_cast<double>(rep.uploadNanos);
  const double prepare = ns("run.prepare"), compile = ns("compile"),
               estimate = ns("compile.estimate"), dram = ns("compile.dram");
  const double execute = ns("run.execute"), pack = ns("host.pack"), unpack = ns("host.unpack"),
               jobs = ns("npu.jobs"), setup = ns("npu.setup"), wait = ns("npu.wait"),
               simulate = ns("npu.simulate"), results = ns("npu.results");
  const double named = ns("run.load") + ns("run.open") + prepare + execute + ns("run.report");
  struct Row {
    int depth;
    const char* what;
    double nanos;
    uint64_t calls;
  };
  const Row rows[] = {
      {0, "load the model and inputs", ns("run.load"), 0},
      {0, "open the backend (SystemC elaboration, DRAM)", ns("run.open"), 0},
      {0, "prepare", prepare, 0},
      {1, "validation (structure, signatures)", prepare - compile, 0},
      {1, "compile", compile, 0},
      {2, "mapping estimates (ISA cost model)", estimate, calls("compile.estimate")},
      {3, "of them, answered from earlier ones (the cache)", 0,
       driver::IsaInterpreter::estimateCacheHits()},
      {2, "lowering, streams, partition (rest)", compile - estimate - dram, 0},
      {2, "DRAM plan", dram, 0},
      {0, "execute", execute, 0},
      {1, "constant upload", upload, 0},
      {1, "host packing (packTensor, writes)", pack, calls("host.pack")},
      {1, "NPU jobs", jobs, calls("npu.setup")},
      {2, "job set-up (encode, reset, ring, doorbell)", setup, 0},
      {2, "simulation (doorbell to interrupt)", simulate, 0},
      {2, "completion (status registers, irq clear)", wait - simulate, 0},
      {2, "results (timelines, perf counters)", results, 0},
      {2, "relocation, job split (rest)", jobs - setup - wait - results, 0},
      {1, "host unpacking (reads, unpackTensor)", unpack, calls("host.unpack")},
      {1, "CPU kernels (CPU steps, host epilogues)", cpu, 0},
      {1, "executor: binding, checks, copies (rest)", execute - upload - pack - jobs - unpack - cpu,
       0},
      {0, "report (table, outputs, JSON, trace)", ns("run.report"), 0},
      {0, "start-up and option parsing (rest)", total - named, 0},
  };
  os << "profile: wall time of this process by phase (--profile)\n";
  os << std::left << std::setw(50) << "" << std::right << std::setw(10) << "seconds" << std::setw(8)
     << "share" << std::setw(9) << "calls"
     << "\n";
  const auto flags = os.flags();
  for (const Row& r : rows) {
    os << std::string(2 + 2 * r.depth, ' ') << std::left << std::setw(48 - 2 * r.depth) << r.what
       << std::right << std::fixed << std::setprecision(3) << std::setw(10) << r.nanos / 1e9
       << std::setprecision(1) << std::setw(7) << 100 * r.nanos / total << "%";
    if (r.calls) os << std::setw(9) << r.calls;
    os << "\n";
  }
  os << "  " << std::left << std::setw(48) << "total (process until now)" << std::right
     << std::setprecision(3) << std::setw(10) << total / 1e9 << "\n";
  os << "register accesses: " << calls("npu.register") << " in " << ns("npu.register") / 1e9
     << " s (inside the rows above)\n";
  if (rep.npuCycles) {
    const double c = static_cast<double>(rep.npuCycles);
    os << std::setprecision(3) << "NPU cycles " << rep.npuCycles << ": " << c / simulate * 1e3
       << " M/s of simulation, " << c / (executeSeconds * 1e9) * 1e3 << " M/s of execution, "
       << c / total * 1e3 << " M/s of the process\n";
  }
  os.flags(flags);
}

}  // namespace

int cmdRun(const Args& args) {
  po::options_description desc("run options");
  std::string file, inputsPath, outputsDir, backend = frontend::defaultBackend(),
                                            preference = "fast_single_answer", reportPath,
                                            tracePath, wavesPath, configPath;
  std::vector<std::string> settings, hostSettings;
  bool check = false, profile = false, noFuse = false;
  desc.add_options()("model", po::value(&file), "model file (default: the embedded demo network)")(
      "inputs", po::value(&inputsPath),
      "JSON file of input values ({\"inputs\": [{\"dimensions\", \"data\"}]}), or .npy files "
      "a.npy,b.npy in the model's input order")(
      "outputs-dir", po::value(&outputsDir), "write output<k>.npy for every model output into DIR")(
      "backend", po::value(&backend)->default_value(backend),
      "sim (simulated SoC), isa (ISA interpreter), ref (reference only)")(
      "check", po::bool_switch(&check),
      "also run every NPU step on the reference and compare bit for bit")(
      "no-fuse", po::bool_switch(&noFuse),
      "every operation its own step: no fused depthwise -> pointwise or convolution -> "
      "ADD steps (ISA 1.9), to compare")(
      "profile", po::bool_switch(&profile),
      "print where the process's wall time went: loading, compile (mapping estimates), host "
      "packing, NPU job set-up, simulation, CPU steps, report")(
      "preference", po::value(&preference)->default_value(preference),
      "low_power | fast_single_answer | sustained_speed")(
      "report", po::value(&reportPath), "write the step table and totals as JSON")(
      "trace", po::value(&tracePath), "write a Chrome trace-event JSON (opens in Perfetto)")(
      "waves", po::value(&wavesPath), "write an FST waveform of the NPU (sim)")(
      "config", po::value(&configPath), "SoC configuration JSON (sim)")(
      "set", po::value(&settings)->multitoken(),
      "SoC setting key=value, e.g. dram_latency_cycles=80 (sim)")(
      "host", po::value(&hostSettings)->multitoken(),
      "host model key=value (clock_mhz, copy_bytes_per_cycle, pack_bytes_per_cycle, cpu_scale): "
      "the host "
      "the books charge for packing, copies and CPU steps");
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  int exit = 0;
  if (!parseOptions(args,
                    "nncosim run [MODEL] [--inputs FILE|A.npy,B.npy] [--outputs-dir DIR] "
                    "[--backend sim|isa|ref] [--check] [--no-fuse] "
                    "[--preference P] [--report FILE.json] [--trace FILE.json] [--waves FILE.fst]",
                    desc, pos, vm, &exit))
    return exit;
  frontend::BackendOptions bo;
  if (auto p = frontend::preferenceFromName(preference))
    bo.preference = *p;
  else {
    std::cerr << "nncosim run: --preference must be low_power, fast_single_answer or "
                 "sustained_speed, not '"
              << preference << "'\n";
    return kExitUsage;
  }
  if (!frontend::backendExists(backend)) {
    std::cerr << "nncosim run: unknown backend '" << backend
              << "' (available: " << frontend::backendNames() << ")\n";
    return kExitUsage;
  }
  bo.wavesPath = wavesPath;
  bo.fuseLayers = !noFuse;
  bo.socSettings = settings;
  bo.socConfigFile = configPath;
  bo.hostSettings = hostSettings;
  hal::profile::enable(profile);

  hal::profile::Scope loading("run.load");
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
  std::string name;
  if (file.empty()) {
    model = verify::demoNetwork();
    inputs = verify::demoInputs(model);
    name = "demo network (embedded)";
  } else {
    // The driver validates the model when it prepares it, once.
    auto loaded = frontend::loadModels(file, frontend::ModelCheck::None);
    if (!loaded) {
      std::cerr << loaded.error() << "\n";
      return kExitFailure;
    }
    if (loaded->size() != 1) {
      std::cerr << file << ": holds " << loaded->size()
                << " models; run takes one (use conformance for vector files)\n";
      return kExitUsage;
    }
    model = std::move(loaded->front().model);
    inputs = std::move(loaded->front().inputs);
    name = file;
  }
  loading.stop();
  const uint64_t modelChecks0 = hal::modelValidations();
  const uint64_t signatureChecks0 = ops::signatureValidations().declared;
  hal::profile::Scope opening("run.open");
  auto opened = frontend::openBackend(backend, bo);
  opening.stop();
  if (!opened) {
    std::cerr << "nncosim run: " << opened.error() << "\n";
    return kExitFailure;
  }
  driver::NnapiDriver& drv = (*opened)->driver();
  const bool hasNpu = drv.device() != nullptr;
  hal::profile::Scope preparing("run.prepare");
  auto prepared = drv.prepareModel(model, bo.preference);
  preparing.stop();
  if (!prepared) {
    std::cerr << name << ": " << prepared.error() << "\n";
    return kExitFailure;
  }
  // Inputs are read against the prepared (valid) model only.
  hal::profile::Scope loadingInputs("run.load");
  if (!inputsPath.empty()) {
    auto in =
        isNpyList(inputsPath) ? readNpyInputs(inputsPath, model) : readInputs(inputsPath, model);
    if (!in) {
      std::cerr << in.error() << "\n";
      return kExitFailure;
    }
    inputs = std::move(*in);
  }
  loadingInputs.stop();
  if (inputs.size() != model.main.inputIndexes.size()) {
    std::cerr << name << ": no input values (give --inputs FILE)\n";
    return kExitFailure;
  }

  frontend::RunSummary sum;
  sum.model = name;
  sum.backend = backend;
  sum.preference = preference;
  sum.checked = check;
  sum.soc = (*opened)->socDescription();
  sum.clockMHz = drv.clockMHz();
  sum.dramBytesPerCycle = (*opened)->dramBytesPerCycle();
  std::cout << "model: " << name << "\nbackend: " << backend;
  if (hasNpu) std::cout << ", preference " << preference;
  std::cout << "\n";
  if (!sum.soc.empty()) std::cout << sum.soc << "\n";
  if (!hasNpu && check) std::cout << "(--check compares NPU steps; the ref backend has none)\n";

  const auto t0 = std::chrono::steady_clock::now();
  driver::ExecuteOptions xo;
  xo.crossCheck = check;
  hal::profile::Scope executing("run.execute");
  auto result = (*prepared)->execute(inputs, xo);
  executing.stop();
  sum.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!result) {
    std::cerr << name << ": execution failed: " << result.error() << "\n";
    return kExitFailure;
  }
  sum.modelValidations = hal::modelValidations() - modelChecks0;
  sum.signatureValidations = ops::signatureValidations().declared - signatureChecks0;
  const std::vector<hal::TensorValue>& outputs = result->outputs;
  sum.outputs = outputs;
  int mismatches = 0;
  hal::profile::Scope reporting("run.report");
  if (hasNpu) {
    sum.report = &result->report;
    sum.commands = result->commands;
    const auto cfg = drv.device()->config();
    sum.rows = cfg.rows;
    sum.cols = cfg.cols;
    const driver::ModelPlan* plan = (*prepared)->plan();
    std::cout << "plan: " << plan->arenaBytes << " bytes of device memory (" << plan->requestedBytes
              << " without reuse)\n";
    frontend::printRunTable(std::cout, sum);
    mismatches = result->report.mismatches;
  } else {
    std::cout << "every step ran on the software reference (" << model.main.operations.size()
              << " steps, " << sum.wallSeconds << " s)\n";
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::cout << "output " << k << " " << hal::toString(outputs[k].type) << " "
              << ops::toString(outputs[k].dimensions) << ": ";
    printValues(outputs[k], 16);
    std::cout << "\n";
  }
  if (!outputsDir.empty())
    if (auto w = writeNpyOutputs(outputsDir, outputs); !w.ok()) {
      std::cerr << w.error() << "\n";
      return kExitFailure;
    }
  if (!reportPath.empty())
    if (auto w = frontend::writeRunReport(sum, reportPath); !w.ok()) {
      std::cerr << w.error() << "\n";
      return kExitFailure;
    }
  if (!tracePath.empty())
    if (auto w = frontend::writeRunTrace(sum, tracePath); !w.ok()) {
      std::cerr << w.error() << "\n";
      return kExitFailure;
    }
  reporting.stop();
  if (profile) printProfile(std::cout, result->report, sum.wallSeconds);
  if (mismatches) {
    for (const auto& s : result->report.steps)
      if (!s.mismatch.empty())
        std::cerr << "MISMATCH step " << s.operation << " (" << hal::toString(s.type)
                  << "): " << s.mismatch << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace nncosim::cli
