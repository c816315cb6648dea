// Differential testing: N random layers (random_layers.h), each executed on an NPU
// backend (the driver: partition -> lower -> NpuDevice) and on the software reference,
// outputs compared bit for bit.
//
// A layer counts as NPU-checked only when its operation really ran on the NPU (one NPU
// step in the backend's ExecutionReport); a layer the partitioner or the lowering left on
// the CPU is a fallback, counted and reported with its reason, never as checked. A
// mismatch, or an execution that fails on either side, fails the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "driver/backend/backend.h"
#include "driver/difftest/random_layers.h"

namespace nncosim::driver::difftest {

struct DifftestOptions {
  uint64_t seed = 1;
  uint64_t first = 0;   // index of the first layer (layer i uses layerSeed(seed, i))
  uint64_t layers = 100;
  GeneratorOptions generator;
};

enum class Outcome {
  kMatch,     // ran on the NPU, bit-exact with the reference
  kMismatch,  // ran on the NPU, differs from the reference
  kFallback,  // the operation ran on the CPU (not NPU-checked)
  kError,     // an execution failed (the NPU's or the reference's)
};
const char* toString(Outcome o);

struct LayerResult {
  uint64_t index = 0, seed = 0;
  hal::OperationType type = hal::OperationType::CONV_2D;
  std::string description;
  Outcome outcome = Outcome::kMatch;
  // kMismatch: output, first differing element (flat index and coordinates), both values,
  // how many elements differ; kFallback: the partitioner's / lowering's reason;
  // kError: which side failed and why.
  std::string detail;
  std::string mapping;  // NPU: how the operation mapped onto the array (the step's plan)
  uint64_t npuCycles = 0;
  uint64_t outputElements = 0;
  bool constantOutput = false;  // every output element has one value (a weak check)
  bool quant16x8 = false;       // the layer's model selects the 16x8 mode
  double npuSeconds = 0, refSeconds = 0;
};

struct OperationTally {
  uint64_t layers = 0, npuChecked = 0, fallbacks = 0, mismatches = 0, errors = 0;
  uint64_t cycles = 0;
};

struct DifftestSummary {
  std::string npuBackend, refBackend;
  uint64_t seed = 0, first = 0;
  uint64_t layers = 0, npuChecked = 0, matched = 0, fallbacks = 0, mismatches = 0, errors = 0;
  uint64_t constantOutputs = 0;  // NPU-checked layers whose output is one value throughout
  uint64_t quant16x8Checked = 0;  // NPU-checked layers in the 16x8 mode
  uint64_t npuCycles = 0, outputElements = 0;
  double seconds = 0, npuSeconds = 0, refSeconds = 0;
  std::map<hal::OperationType, OperationTally> byOperation;
  std::vector<LayerResult> failures;            // mismatches and errors, in order
  std::map<std::string, uint64_t> fallbackReasons;  // reason -> layers
  std::vector<LayerResult> fallbackExamples;    // the first layer of each reason
  bool ok() const { return mismatches == 0 && errors == 0; }
  // The table by operation, the totals, every failure (up to maxFailures) with its layer,
  // and the fallback reasons.
  void print(std::ostream& os, size_t maxFailures = 50) const;
};

// Executes one random layer on both backends and compares. The NPU backend's placement
// and cycles come from NpuBackend::lastReport() when it is one; any other backend counts
// as on the NPU when ExecutionStats::npuSteps == 1.
LayerResult runLayer(const RandomLayer& layer, uint64_t index, Backend& npu, Backend& reference);

// Runs options.layers layers; `progress` (optional) is called after each.
DifftestSummary runDifftest(Backend& npu, Backend& reference, const DifftestOptions& options,
                            const std::function<void(const LayerResult&, const DifftestSummary&)>& progress = {});

// The first difference between two output sets, "" when bit-exact: "output 0 element 17
// [0, 1, 2, 1] (of 96): NPU 12, reference 13; 3 elements differ (max |diff| 1)".
std::string compareOutputs(const std::vector<hal::TensorValue>& npu, const std::vector<hal::TensorValue>& reference);

}  // namespace nncosim::driver::difftest
