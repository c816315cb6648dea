// nncosim difftest: random NPU-eligible layers run on the NPU (the driver on the
// simulated SoC or the ISA interpreter) and on the software reference, compared bit for
// bit (verify/difftest/).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>

#include "frontend/backends.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "driver/compiler/lowering.h"
#include "verify/difftest/difftest.h"

namespace nncosim::cli {
namespace {

hal::Result<hal::ExecutionPreference> parsePreference(const std::string& s) {
  for (auto p : {hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                 hal::ExecutionPreference::SUSTAINED_SPEED, hal::ExecutionPreference::LOW_POWER})
    if (s == hal::toString(p)) return p;
  if (s == "fast") return hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  if (s == "sustained") return hal::ExecutionPreference::SUSTAINED_SPEED;
  if (s == "low-power") return hal::ExecutionPreference::LOW_POWER;
  return hal::fail("unknown preference '", s, "' (FAST_SINGLE_ANSWER|SUSTAINED_SPEED|LOW_POWER)");
}

std::string typeNames() {
  std::string s;
  for (hal::OperationType t : verify::difftest::randomLayerTypes())
    s += (s.empty() ? "" : "|") + std::string(hal::toString(t));
  for (hal::OperationType t : verify::difftest::onRequestLayerTypes())
    s += "|" + std::string(hal::toString(t));
  return s;
}

}  // namespace

int cmdDifftest(const Args& args) {
  po::options_description desc("difftest options");
  uint64_t layers = 100, seed = 1, first = 0;
  std::string backend = frontend::backendExists("sim") ? "sim" : "isa",
              preference = "FAST_SINGLE_ANSWER";
  std::vector<std::string> opNames, soc;
  std::string socConfig, mapping = "auto";
  uint32_t maxSpatial = 20, maxChannels = 48, maxBatch = 3;
  double quant16x8 = verify::difftest::GeneratorOptions{}.quant16x8;
  size_t maxFailures = 50;
  bool verbose = false, fusedPairs = false, invertedResiduals = false, chains = false,
       overlapped = false;
  desc.add_options()("layers,n", po::value(&layers)->default_value(layers), "random layers to run")(
      "seed,s", po::value(&seed)->default_value(seed),
      "run seed (layer i is generated from seed and i)")(
      "first", po::value(&first)->default_value(first),
      "index of the first layer (`--first I --layers 1` reproduces layer I of a run)")(
      "backend", po::value(&backend)->default_value(backend),
      "NPU backend: sim (the driver on the simulated SoC) or isa (the driver on the ISA "
      "interpreter)")(
      "op", po::value(&opNames)->multitoken(),
      ("operation types to draw from (repeat or comma-separate; default all): " + typeNames())
          .c_str())(
      "mapping", po::value(&mapping)->default_value(mapping),
      "convolution mapping the driver must use: auto (the cost model's choice), host-im2col, "
      "dma-im2col, "
      "shifted-windows, output-blocks, window (ISA 1.5 window GEMMs), dwconv (ISA 1.6, depthwise "
      "layers and unclipped average pools), raw-window (ISA 1.5 window GEMMs over the NHWC "
      "input, few input channels) (a layer it does not apply to stays on the CPU: a "
      "fallback)")("preference", po::value(&preference)->default_value(preference),
                   "execution preference the driver compiles for "
                   "(FAST_SINGLE_ANSWER|SUSTAINED_SPEED|LOW_POWER)")(
      "max-spatial", po::value(&maxSpatial)->default_value(maxSpatial),
      "largest input height / width")(
      "max-channels", po::value(&maxChannels)->default_value(maxChannels),
      "largest channel count (also FC units, matmul rows / columns)")(
      "max-batch", po::value(&maxBatch)->default_value(maxBatch), "largest batch")(
      "quant16x8", po::value(&quant16x8)->default_value(quant16x8),
      "share (0..1) of CONV_2D / DEPTHWISE_CONV_2D / GROUPED_CONV_2D / FULLY_CONNECTED layers "
      "drawn in the "
      "16x8 mode (int16 activations, int8 weights)")("config", po::value(&socConfig),
                                                     "SoC configuration JSON (sim)")(
      "set", po::value(&soc)->multitoken(),
      "SoC setting key=value, e.g. dram_latency_cycles=80 (sim)")(
      "fused-pairs", po::bool_switch(&fusedPairs),
      "draw pairs instead of single layers, half and half: a DEPTHWISE_CONV_2D and the "
      "pointwise CONV_2D that reads its output, or a CONV_2D and the ADD, SUB or MUL that "
      "reads its output, which the driver fuses into one step (ISA 1.9)")(
      "inverted-residuals", po::bool_switch(&invertedResiduals),
      "draw inverted residuals instead of single layers: a pointwise CONV_2D expansion, a "
      "DEPTHWISE_CONV_2D and a pointwise CONV_2D projection, and where the shapes allow, half "
      "of the time, the ADD of the block's input, which the driver fuses whole (its rows into INP "
      "in segments, ISA "
      "1.13)")("chains", po::bool_switch(&chains),
               "draw chains instead of single layers: two or three DEPTHWISE_CONV_2D -> pointwise "
               "CONV_2D pairs, each depthwise layer reading the pointwise output before it, which "
               "the driver joins into one step")(
      "overlapped", po::bool_switch(&overlapped),
      "draw, half and half, DEPTHWISE_CONV_2D -> pointwise CONV_2D pairs and inverted residuals "
      "without the ADD (one image), and fuse them into overlapped blocks wherever they fit "
      "(the next block's depthwise commands among this block's GEMMs, ISA 1.14-1.15)")(
      "max-failures", po::value(&maxFailures)->default_value(maxFailures),
      "failures listed in the summary")("verbose,v", po::bool_switch(&verbose),
                                        "one line per layer: outcome, cycles, parameters");
  po::positional_options_description pos;
  po::variables_map vm;
  int exit = 0;
  const char* usage =
      "nncosim difftest [--layers N] [--seed S] [--first I] [--backend sim|isa] [--op CONV_2D|...] "
      "[--fused-pairs|--inverted-residuals|--chains|--overlapped] [--mapping M] [--preference P] "
      "[--set k=v] "
      "[--verbose]";
  if (!parseOptions(args, usage, desc, pos, vm, &exit)) return exit;

  verify::difftest::DifftestOptions opt;
  opt.seed = seed;
  opt.first = first;
  opt.layers = layers;
  opt.generator.maxSpatial = maxSpatial;
  opt.generator.maxChannels = maxChannels;
  opt.generator.maxBatch = maxBatch;
  opt.generator.quant16x8 = quant16x8;
  opt.generator.fusedPairs = fusedPairs;
  opt.generator.invertedResiduals = invertedResiduals;
  opt.generator.chains = chains;
  opt.generator.overlapped = overlapped;
  if (int{fusedPairs} + int{invertedResiduals} + int{chains} + int{overlapped} > 1) {
    std::cerr << "nncosim difftest: --fused-pairs, --inverted-residuals, --chains and "
                 "--overlapped draw different layers; give one\n";
    return 2;
  }
  for (const std::string& list : opNames) {
    std::stringstream ss(list);
    std::string name;
    while (std::getline(ss, name, ',')) {
      if (name.empty()) continue;
      auto t = hal::operationTypeFromString(name);
      if (!t || !verify::difftest::isRandomLayerType(*t)) {
        std::cerr << "nncosim difftest: --op: '" << name << "' is not one of " << typeNames()
                  << "\n";
        return kExitUsage;
      }
      opt.generator.types.push_back(*t);
    }
  }
  if (!(quant16x8 >= 0 && quant16x8 <= 1)) {
    std::cerr << "nncosim difftest: --quant16x8 must be between 0 and 1\n";
    return kExitUsage;
  }
  if (maxSpatial < 1 || maxChannels < 1 || maxBatch < 1) {
    std::cerr << "nncosim difftest: --max-spatial, --max-channels and --max-batch must be >= 1\n";
    return kExitUsage;
  }
  if (backend != "sim" && backend != "isa") {
    std::cerr << "nncosim difftest: --backend must be sim or isa (available: "
              << frontend::backendNames() << ")\n";
    return kExitUsage;
  }
  if (!frontend::backendExists(backend)) {
    std::cerr << "nncosim difftest: backend '" << backend
              << "' is not built (available: " << frontend::backendNames() << ")\n";
    return kExitUsage;
  }
  const auto convMapping = frontend::convMappingFromName(mapping);
  if (!convMapping) {
    std::cerr << "nncosim difftest: --mapping: unknown mapping '" << mapping << "' ("
              << frontend::convMappingNames() << ")\n";
    return kExitUsage;
  }
  frontend::BackendOptions bo;
  auto pref = parsePreference(preference);
  if (!pref) {
    std::cerr << "nncosim difftest: --preference: " << pref.error() << "\n";
    return kExitUsage;
  }
  bo.preference = *pref;
  bo.socSettings = soc;
  bo.socConfigFile = socConfig;
  bo.convMapping = *convMapping;
  if (overlapped) bo.blockJoin = driver::LoweringOptions::BlockJoin::kOverlapped;
  // One driver (and, for sim, one elaborated SoC) serves every layer.
  auto npu = frontend::openBackend(backend, bo);
  if (!npu) {
    std::cerr << "nncosim difftest: " << npu.error() << "\n";
    return kExitFailure;
  }
  driver::NnapiDriver reference(nullptr);
  const verify::difftest::DifftestDrivers drivers{
      (*npu)->driver(),
      *convMapping == driver::ConvMapping::kAuto ? backend : backend + " (" + mapping + ")",
      reference, "ref"};
  opt.preference = bo.preference;
  if (!(*npu)->socDescription().empty()) std::cout << (*npu)->socDescription() << "\n";

  const bool tty = ::isatty(2);
  const uint64_t every = std::max<uint64_t>(1, layers / 20);
  auto progress = [&](const verify::difftest::LayerResult& r,
                      const verify::difftest::DifftestSummary& s) {
    using verify::difftest::Outcome;
    if (verbose) {
      std::cout << "layer " << r.index << " " << toString(r.outcome);
      if (r.outcome == Outcome::kMatch || r.outcome == Outcome::kMismatch)
        std::cout << " " << r.npuCycles << " cycles";
      if (!r.mapping.empty()) std::cout << " [" << r.mapping << "]";
      if (r.constantOutput) std::cout << " (one output value)";
      std::cout << ": " << r.description << "\n";
      if (r.outcome != Outcome::kMatch) std::cout << "    " << r.detail << "\n";
    } else if (r.outcome == Outcome::kMismatch || r.outcome == Outcome::kError) {
      std::cout << toString(r.outcome) << " layer " << r.index << " (seed " << seed
                << "): " << r.description << "\n    " << r.detail << "\n";
    }
    std::cout.flush();
    const bool last = s.layers == layers;
    if (tty) {
      std::fprintf(
          stderr,
          "\r[%llu/%llu] %llu NPU-checked, %llu fallbacks, %llu mismatches, %llu errors, %.1f s%s",
          (unsigned long long)s.layers, (unsigned long long)layers,
          (unsigned long long)s.npuChecked, (unsigned long long)s.fallbacks,
          (unsigned long long)s.mismatches, (unsigned long long)s.errors, s.seconds,
          last ? "\n" : "");
    } else if (s.layers % every == 0 || last) {
      std::fprintf(
          stderr,
          "[%llu/%llu] %llu NPU-checked, %llu fallbacks, %llu mismatches, %llu errors, %.1f s\n",
          (unsigned long long)s.layers, (unsigned long long)layers,
          (unsigned long long)s.npuChecked, (unsigned long long)s.fallbacks,
          (unsigned long long)s.mismatches, (unsigned long long)s.errors, s.seconds);
    }
  };
  const auto summary = verify::difftest::runDifftest(drivers, opt, progress);
  std::cout << "\n";
  summary.print(std::cout, maxFailures);
  return summary.ok() ? kExitOk : kExitFailure;
}

}  // namespace nncosim::cli
