#include "verify/difftest/difftest.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "ops/shape.h"

namespace nncosim::verify::difftest {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int64_t elementValue(hal::OperandType type, const uint8_t* p) {
  switch (type) {
    case hal::OperandType::TENSOR_QUANT8_ASYMM:
    case hal::OperandType::TENSOR_BOOL8:
      return *p;
    case hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case hal::OperandType::TENSOR_QUANT8_SYMM:
    case hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return static_cast<int8_t>(*p);
    case hal::OperandType::TENSOR_QUANT16_ASYMM: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    case hal::OperandType::TENSOR_QUANT16_SYMM:
    case hal::OperandType::TENSOR_FLOAT16: {
      int16_t x;
      std::memcpy(&x, p, 2);
      return x;
    }
    default: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return x;
    }
  }
}

// Coordinates of flat element `i` in `dims` ("[0, 1, 2, 1]").
std::string coordinates(const std::vector<uint32_t>& dims, uint64_t i) {
  std::vector<uint32_t> c(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] == 0) return "?";
    c[d] = static_cast<uint32_t>(i % dims[d]);
    i /= dims[d];
  }
  return ops::toString(c);
}

bool constantOutput(const std::vector<hal::TensorValue>& outputs) {
  for (const hal::TensorValue& v : outputs) {
    const size_t es = hal::elementSize(v.type);
    for (size_t i = es; i + es <= v.bytes.size(); i += es)
      if (std::memcmp(v.bytes.data(), v.bytes.data() + i, es) != 0) return false;
  }
  return true;
}

std::string shortened(const std::string& s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

}  // namespace

const char* toString(Outcome o) {
  switch (o) {
    case Outcome::kMatch:
      return "match";
    case Outcome::kMismatch:
      return "MISMATCH";
    case Outcome::kFallback:
      return "cpu-fallback";
    case Outcome::kError:
      return "ERROR";
  }
  return "?";
}

std::string compareOutputs(const std::vector<hal::TensorValue>& npu,
                           const std::vector<hal::TensorValue>& reference) {
  std::ostringstream os;
  if (npu.size() != reference.size()) {
    os << "NPU produced " << npu.size() << " outputs, reference " << reference.size();
    return os.str();
  }
  for (size_t k = 0; k < reference.size(); ++k) {
    const hal::TensorValue& a = npu[k];
    const hal::TensorValue& b = reference[k];
    if (a.type != b.type) {
      os << "output " << k << ": NPU type " << hal::toString(a.type) << ", reference "
         << hal::toString(b.type);
      return os.str();
    }
    if (a.dimensions != b.dimensions) {
      os << "output " << k << ": NPU shape " << ops::toString(a.dimensions) << ", reference "
         << ops::toString(b.dimensions);
      return os.str();
    }
    if (a.bytes.size() != b.bytes.size()) {
      os << "output " << k << ": NPU " << a.bytes.size() << " bytes, reference " << b.bytes.size();
      return os.str();
    }
    const size_t es = hal::elementSize(b.type);
    const uint64_t n = b.bytes.size() / es;
    uint64_t differ = 0, first = n;
    int64_t maxDiff = 0;
    for (uint64_t i = 0; i < n; ++i) {
      if (std::memcmp(a.bytes.data() + i * es, b.bytes.data() + i * es, es) == 0) continue;
      if (differ++ == 0) first = i;
      const int64_t d = elementValue(b.type, a.bytes.data() + i * es) -
                        elementValue(b.type, b.bytes.data() + i * es);
      maxDiff = std::max(maxDiff, d < 0 ? -d : d);
    }
    if (differ == 0) continue;
    os << "output " << k << " element " << first << " " << coordinates(b.dimensions, first)
       << " of shape " << ops::toString(b.dimensions) << ": NPU "
       << elementValue(b.type, a.bytes.data() + first * es) << ", reference "
       << elementValue(b.type, b.bytes.data() + first * es) << "; " << differ << " of " << n
       << " elements differ (max |diff| " << maxDiff << ")";
    return os.str();
  }
  return "";
}

namespace {

// Prepares and executes `layer` through `drv`: its outputs and step report.
hal::Status executeLayer(driver::NnapiDriver& drv, const RandomLayer& layer,
                         hal::ExecutionPreference preference,
                         std::vector<hal::TensorValue>& outputs, driver::ExecutionReport& report) {
  NNC_ASSIGN_OR_RETURN(auto prepared, drv.prepareModel(layer.model, preference));
  NNC_ASSIGN_OR_RETURN(auto result, (prepared)->execute(layer.inputs));
  outputs = std::move(result.outputs);
  report = std::move(result.report);
  return hal::Status::Ok();
}

}  // namespace

LayerResult runLayer(const RandomLayer& layer, uint64_t index, const DifftestDrivers& drivers,
                     hal::ExecutionPreference preference) {
  LayerResult r;
  r.index = index;
  r.seed = layer.seed;
  r.type = layer.type;
  r.description = layer.description;
  r.quant16x8 = layer.model.quant16x8;

  std::vector<hal::TensorValue> want, got;
  driver::ExecutionReport refReport, rep;
  auto t0 = Clock::now();
  hal::Status refStatus = executeLayer(drivers.reference, layer, preference, want, refReport);
  r.refSeconds = secondsSince(t0);
  if (!refStatus.ok()) {
    // The generator promises valid layers: a rejection is a generator (or reference) bug.
    r.outcome = Outcome::kError;
    r.detail = "reference (" + drivers.referenceName + ") failed: " + refStatus.error();
    return r;
  }
  for (const hal::TensorValue& v : want)
    r.outputElements += v.bytes.size() / hal::elementSize(v.type);

  // Layers are independent: each is a model of its own, prepared and executed from empty
  // device memory (the driver frees the device for a model that is not resident).
  t0 = Clock::now();
  hal::Status npuStatus = executeLayer(drivers.npu, layer, preference, got, rep);
  r.npuSeconds = secondsSince(t0);
  if (!npuStatus.ok()) {
    r.outcome = Outcome::kError;
    r.detail = "NPU backend (" + drivers.npuName + ") failed: " + npuStatus.error();
    return r;
  }
  r.npuCycles = rep.npuCycles;
  // Every operation of the layer's model on the NPU (a fused pair: both, in one step).
  if (rep.npuSteps != static_cast<int>(layer.model.main.operations.size())) {
    r.outcome = Outcome::kFallback;
    r.detail = rep.steps.empty() ? "no step ran" : rep.steps.front().note;
    if (r.detail.empty()) r.detail = "on the CPU (no reason given)";
  } else if (!rep.steps.empty()) {
    r.mapping = rep.steps.front().note;
    // "fused: ...", "fused inverted residual: ...", "fused chain ...", the other operations
    // "fused into operation 0's step".
    r.fused =
        r.mapping.rfind("fused", 0) == 0 && std::all_of(rep.steps.begin() + 1, rep.steps.end(),
                                                        [](const driver::ExecutionReport::Step& x) {
                                                          return x.note.rfind("fused into", 0) == 0;
                                                        });
    r.chain = r.fused && r.mapping.rfind("fused chain", 0) == 0;
    r.overlapped = r.fused && r.mapping.find("(overlapped") != std::string::npos;
  }
  // Outputs are compared even for a fallback: the CPU path must agree too.
  const std::string diff = compareOutputs(got, want);
  if (!diff.empty()) {
    if (r.outcome == Outcome::kFallback) {
      r.outcome = Outcome::kError;
      r.detail = "CPU fallback (" + r.detail + ") differs from the reference: " + diff;
    } else {
      r.outcome = Outcome::kMismatch;
      r.detail = diff;
    }
    return r;
  }
  if (r.outcome == Outcome::kMatch) r.constantOutput = constantOutput(want);
  return r;
}

DifftestSummary runDifftest(
    const DifftestDrivers& drivers, const DifftestOptions& options,
    const std::function<void(const LayerResult&, const DifftestSummary&)>& progress) {
  DifftestSummary s;
  s.npuBackend = drivers.npuName;
  s.refBackend = drivers.referenceName;
  s.seed = options.seed;
  s.first = options.first;
  const auto start = Clock::now();
  for (uint64_t i = options.first; i < options.first + options.layers; ++i) {
    const RandomLayer layer = randomLayer(layerSeed(options.seed, i), options.generator);
    LayerResult r = runLayer(layer, i, drivers, options.preference);
    OperationTally& t = s.byOperation[r.type];
    ++s.layers;
    ++t.layers;
    s.npuSeconds += r.npuSeconds;
    s.refSeconds += r.refSeconds;
    switch (r.outcome) {
      case Outcome::kMatch:
        ++s.npuChecked, ++t.npuChecked, ++s.matched;
        s.constantOutputs += r.constantOutput;
        s.quant16x8Checked += r.quant16x8;
        s.fusedChecked += r.fused;
        s.chainsChecked += r.chain;
        s.overlappedChecked += r.overlapped;
        break;
      case Outcome::kMismatch:
        ++s.npuChecked, ++t.npuChecked, ++s.mismatches, ++t.mismatches;
        s.quant16x8Checked += r.quant16x8;
        s.fusedChecked += r.fused;
        s.chainsChecked += r.chain;
        s.overlappedChecked += r.overlapped;
        s.failures.push_back(r);
        break;
      case Outcome::kFallback: {
        ++s.fallbacks, ++t.fallbacks;
        if (s.fallbackReasons[r.detail]++ == 0) s.fallbackExamples.push_back(r);
        break;
      }
      case Outcome::kError:
        ++s.errors, ++t.errors;
        s.failures.push_back(r);
        break;
    }
    if (r.outcome == Outcome::kMatch || r.outcome == Outcome::kMismatch) {
      s.npuCycles += r.npuCycles;
      t.cycles += r.npuCycles;
      s.outputElements += r.outputElements;
    }
    s.seconds = secondsSince(start);
    if (progress) progress(r, s);
  }
  s.seconds = secondsSince(start);
  return s;
}

void DifftestSummary::print(std::ostream& os, size_t maxFailures) const {
  os << "difftest: " << npuBackend << " against " << refBackend << ", seed " << seed << ", layers "
     << first << ".." << (first + layers == 0 ? 0 : first + layers - 1) << "\n\n";
  os << std::left << std::setw(20) << "operation" << std::right << std::setw(8) << "layers"
     << std::setw(12) << "NPU-checked" << std::setw(11) << "fallbacks" << std::setw(12)
     << "mismatches" << std::setw(8) << "errors" << std::setw(14) << "NPU cycles"
     << "\n";
  for (const auto& [type, t] : byOperation)
    os << std::left << std::setw(20) << hal::toString(type) << std::right << std::setw(8)
       << t.layers << std::setw(12) << t.npuChecked << std::setw(11) << t.fallbacks << std::setw(12)
       << t.mismatches << std::setw(8) << t.errors << std::setw(14) << t.cycles << "\n";
  os << std::left << std::setw(20) << "total" << std::right << std::setw(8) << layers
     << std::setw(12) << npuChecked << std::setw(11) << fallbacks << std::setw(12) << mismatches
     << std::setw(8) << errors << std::setw(14) << npuCycles << "\n\n";

  if (!failures.empty()) {
    os << failures.size() << " failure(s):\n";
    for (size_t i = 0; i < failures.size() && i < maxFailures; ++i) {
      const LayerResult& f = failures[i];
      os << "  layer " << f.index << " (seed " << seed << ", layer seed 0x" << std::hex << f.seed
         << std::dec << ") " << toString(f.outcome) << "\n    " << f.description << "\n    "
         << f.detail << "\n";
    }
    if (failures.size() > maxFailures)
      os << "  ... and " << failures.size() - maxFailures << " more\n";
    os << "\n";
  }
  if (!fallbackReasons.empty()) {
    os << fallbacks << " layer(s) ran on the CPU (not NPU-checked):\n";
    for (const LayerResult& e : fallbackExamples)
      os << "  " << fallbackReasons.at(e.detail) << "x " << shortened(e.detail, 200)
         << "\n    e.g. layer " << e.index << ": " << e.description << "\n";
    os << "\n";
  }
  os << std::fixed << std::setprecision(1);
  os << "layers " << layers << ", NPU-checked " << npuChecked << " (" << matched << " bit-exact, "
     << outputElements << " output elements; " << quant16x8Checked << " in the 16x8 mode";
  if (fusedChecked) os << ", " << fusedChecked << " as fused steps";
  if (chainsChecked) os << " (" << chainsChecked << " of them chains)";
  if (overlappedChecked) os << " (" << overlappedChecked << " of them in overlapped blocks)";
  os << "), CPU fallbacks " << fallbacks << ", mismatches " << mismatches << ", errors " << errors
     << "\n";
  os << "NPU cycles " << npuCycles << " total";
  if (npuChecked) os << " (" << npuCycles / npuChecked << " per checked layer)";
  os << "; wall time " << seconds << " s (NPU backend " << npuSeconds << " s, reference "
     << refSeconds << " s)\n";
  if (constantOutputs)
    os << "note: " << constantOutputs
       << " checked layer(s) produced a single output value throughout\n";
  os << std::defaultfloat;
  os << (ok() ? "PASS" : "FAIL") << "\n";
}

}  // namespace nncosim::verify::difftest
