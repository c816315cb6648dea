// nncosim capabilities [MODEL]: the driver's getCapabilities() (each PerformanceInfo and
// how it was measured) and, with a model, getSupportedOperations() per operation: where
// it runs and why.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "frontend/backends.h"
#include "cli/commands.h"
#include "frontend/model_source.h"
#include "cli/options.h"
#include "verify/models/demo_network.h"

namespace nncosim::cli {
namespace {

void printPerformance(const std::string& what, const hal::PerformanceInfo& p,
                      const std::string& how) {
  std::cout << "  " << std::left << std::setw(34) << what << std::right << " execTime "
            << std::setw(9) << p.execTime << "  powerUsage " << std::setw(9) << p.powerUsage << "  "
            << how << "\n";
}

}  // namespace

int cmdCapabilities(const Args& args) {
  po::options_description desc("capabilities options");
  std::string file, backend = frontend::defaultBackend();
  bool demo = false;
  desc.add_options()("model", po::value(&file),
                     "a model file: also print where each operation runs and why")(
      "demo", po::bool_switch(&demo), "the same for the embedded demo network")(
      "backend", po::value(&backend)->default_value(backend),
      "sim (simulated SoC), isa (ISA model), ref (no NPU)");
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  int exit = 0;
  if (!parseOptions(args, "nncosim capabilities [MODEL|--demo] [--backend sim|isa|ref]", desc, pos,
                    vm, &exit))
    return exit;
  if (!frontend::backendExists(backend)) {
    std::cerr << "nncosim capabilities: unknown backend '" << backend
              << "' (available: " << frontend::backendNames() << ")\n";
    return kExitUsage;
  }
  hal::Model model;
  std::string name;
  if (!file.empty()) {
    auto loaded =
        frontend::loadModels(file, frontend::ModelCheck::None);  // getSupportedOperations validates
    if (!loaded) {
      std::cerr << loaded.error() << "\n";
      return kExitFailure;
    }
    if (loaded->size() != 1) {
      std::cerr << file << ": holds " << loaded->size() << " models; capabilities takes one\n";
      return kExitUsage;
    }
    model = std::move(loaded->front().model);
    name = file;
  } else if (demo) {
    model = verify::demoNetwork();
    name = "demo network (embedded)";
  }
  auto opened = frontend::openBackend(backend, frontend::BackendOptions{});
  if (!opened) {
    std::cerr << "nncosim capabilities: " << opened.error() << "\n";
    return kExitFailure;
  }
  driver::NnapiDriver& drv = (*opened)->driver();
  const hal::Capabilities& caps = drv.getCapabilities();
  std::cout << "backend: " << backend << "\n";
  if (!(*opened)->socDescription().empty()) std::cout << (*opened)->socDescription() << "\n";
  std::cout
      << "capabilities (execTime and powerUsage relative to the CPU reference; lower is better):\n";
  std::ostringstream q8, q16;
  const bool npu = drv.device() != nullptr && drv.calibrationNpuMicros() > 0;
  if (npu) {
    const auto& c = drv.calibration();
    q8 << std::setprecision(4) << "measured: calibration CONV_2D 3x3 32x32x32->32 int8, NPU "
       << c.npuMicros << " us (device cycles at " << drv.clockMHz()
       << " MHz + the host's passes, modelled) / reference " << c.cpuMicros
       << " us (host wall time, median of 5); energy NPU " << c.npuPicojoules / 1e6
       << " uJ (energy model) / CPU " << c.cpuPicojoules / 1e6
       << " uJ (its time x the core's power)";
    const auto& w = drv.calibration16x8();
    q16 << std::setprecision(4) << "measured: the same layer in the 16x8 mode, NPU " << w.npuMicros
        << " us / reference " << w.cpuMicros << " us; energy " << w.npuPicojoules / 1e6 << " / "
        << w.cpuPicojoules / 1e6 << " uJ";
  } else {
    q8 << "no NPU: the reference (1.0 by construction)";
    q16 << q8.str();
  }
  const std::string onCpu = "runs on the reference (1.0 by construction)";
  printPerformance("float32", caps.float32Performance, onCpu);
  printPerformance("relaxed float32->float16 scalar", caps.relaxedFloat32toFloat16PerformanceScalar,
                   onCpu);
  printPerformance("relaxed float32->float16 tensor", caps.relaxedFloat32toFloat16PerformanceTensor,
                   onCpu);
  printPerformance("quantized8", caps.quantized8Performance, q8.str());
  printPerformance("IF", caps.ifPerformance, onCpu);
  printPerformance("WHILE", caps.whilePerformance, onCpu);
  std::cout << "per operand type:\n";
  for (const auto& [type, perf] : caps.operandPerformance) {
    const bool q8type = type == hal::OperandType::TENSOR_QUANT8_ASYMM ||
                        type == hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    const bool q16type = type == hal::OperandType::TENSOR_QUANT16_SYMM;
    printPerformance(std::string(hal::toString(type)), perf,
                     q8type    ? "as quantized8"
                     : q16type ? (npu ? q16.str() + " (16x8-mode models)" : q16.str())
                               : onCpu);
  }
  std::cout << "powerUsage: energy relative to the CPU (docs/driver.md, \"Energy model\")\n";
  if (name.empty()) return kExitOk;

  auto support = drv.getSupportedOperations(model);
  if (!support) {
    std::cerr << name << ": " << support.error() << "\n";
    return kExitFailure;
  }
  std::cout << "\n" << name << ": getSupportedOperations\n";
  int onNpu = 0, unsupported = 0;
  for (size_t k = 0; k < support->size(); ++k) {
    const auto& s = (*support)[k];
    std::cout << "  #" << std::left << std::setw(4) << k << std::setw(28)
              << hal::toString(model.main.operations[k].type) << std::setw(5)
              << (!s.supported ? "none"
                  : s.onNpu    ? "npu"
                               : "cpu")
              << std::right;
    if (!s.reason.empty()) std::cout << " " << s.reason;
    std::cout << "\n";
    onNpu += s.onNpu;
    unsupported += !s.supported;
  }
  std::cout << onNpu << " of " << support->size() << " operations on the NPU, " << unsupported
            << " not supported\n";
  return unsupported ? kExitFailure : kExitOk;
}

}  // namespace nncosim::cli
