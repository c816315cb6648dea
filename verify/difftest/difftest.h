// Differential testing: N random layers (random_layers.h), each prepared and executed
// through an NnapiDriver on an NPU (partition -> lower -> NpuDevice) and through a driver
// without one (the software reference), outputs compared bit for bit.
//
// A layer counts as NPU-checked only when its operation really ran on the NPU (one NPU
// step in the execution's ExecutionReport); a layer the partitioner or the lowering left on
// the CPU is a fallback, counted and reported with its reason, never as checked. A
// mismatch, or an execution that fails on either side, fails the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "driver/api/nnapi_driver.h"
#include "verify/difftest/random_layers.h"

namespace nncosim::verify::difftest {

struct DifftestOptions {
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  uint64_t seed = 1;
  uint64_t first = 0;  // index of the first layer (layer i uses layerSeed(seed, i))
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
  bool fused = false;           // its operations ran as one fused step (a fused pair)
  bool chain = false;           // that step a chain of pairs (lowerFusedChain)
  bool overlapped = false;      // that step in overlapped blocks (block_pipeline.h)
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
  uint64_t constantOutputs = 0;    // NPU-checked layers whose output is one value throughout
  uint64_t quant16x8Checked = 0;   // NPU-checked layers in the 16x8 mode
  uint64_t fusedChecked = 0;       // NPU-checked layers that ran as one fused step
  uint64_t chainsChecked = 0;      // of them, chains of pairs
  uint64_t overlappedChecked = 0;  // of them, in overlapped blocks
  uint64_t npuCycles = 0, outputElements = 0;
  double seconds = 0, npuSeconds = 0, refSeconds = 0;
  std::map<hal::OperationType, OperationTally> byOperation;
  std::vector<LayerResult> failures;                // mismatches and errors, in order
  std::map<std::string, uint64_t> fallbackReasons;  // reason -> layers
  std::vector<LayerResult> fallbackExamples;        // the first layer of each reason
  bool ok() const { return mismatches == 0 && errors == 0; }
  // The table by operation, the totals, every failure (up to maxFailures) with its layer,
  // and the fallback reasons.
  void print(std::ostream& os, size_t maxFailures = 50) const;
};

// The two drivers compared, with the names the summary prints.
struct DifftestDrivers {
  driver::NnapiDriver& npu;
  std::string npuName;
  driver::NnapiDriver& reference;
  std::string referenceName;
};

// Executes one random layer through both drivers and compares; the placement and cycles
// come from the NPU side's ExecutionReport.
LayerResult runLayer(
    const RandomLayer& layer, uint64_t index, const DifftestDrivers& drivers,
    hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER);

// Runs options.layers layers; `progress` (optional) is called after each.
DifftestSummary runDifftest(
    const DifftestDrivers& drivers, const DifftestOptions& options,
    const std::function<void(const LayerResult&, const DifftestSummary&)>& progress = {});

// The first difference between two output sets, "" when bit-exact: "output 0 element 17
// [0, 1, 2, 1] (of 96): NPU 12, reference 13; 3 elements differ (max |diff| 1)".
std::string compareOutputs(const std::vector<hal::TensorValue>& npu,
                           const std::vector<hal::TensorValue>& reference);

}  // namespace nncosim::verify::difftest
