// NnapiDriver: the HAL-like API of the driver, shaped like an NNAPI device:
//
//   NnapiDriver drv(device);                       // an NpuDevice (simulated SoC or ISA interpreter)
//   Capabilities caps = drv.getCapabilities();     // measured, see below
//   auto support = drv.getSupportedOperations(model);
//   auto prepared = drv.prepareModel(model, ExecutionPreference::FAST_SINGLE_ANSWER);
//   auto result = prepared->execute(request);      // outputs, output shapes, timing
//
// Capabilities are measured, not invented: on first use the driver times a calibration
// layer (a quantized 3x3 CONV_2D, 32x32x32 -> 32 channels) on the NPU (its cycles at
// the device clock) and on the software reference (host wall time, median of 5), and
// reports the ratio NPU/CPU as execTime for quant8 work; the same layer in the 16x8 mode
// (int16 activations) gives TENSOR_QUANT16_SYMM's entry. Float work and every operation
// without NPU support run on the reference, so their ratio is 1.0 by construction. The
// simulator has no power model: powerUsage is taken equal to execTime (energy assumed
// proportional to busy time), which docs/driver.md states.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/compiler/runtime.h"
#include "hal/capabilities.h"
#include "hal/model.h"
#include "hal/request.h"

namespace nncosim::driver {

struct OperationSupport {
  bool supported = false;  // the driver can execute it (on the NPU or its fallback)
  bool onNpu = false;      // and it would run on the NPU
  std::string reason;      // why not supported, or why it stays on the CPU
};

struct Timing {
  uint64_t npuCycles = 0;          // all NPU steps
  double npuMicros = 0;            // npuCycles at the device clock
  double cpuMicros = 0;            // host time of the CPU steps
  std::vector<uint64_t> stepCycles;  // per main-subgraph operation (0 on the CPU)
};

struct ExecutionResult {
  std::vector<hal::TensorValue> outputs;
  std::vector<hal::OutputShape> outputShapes;
  Timing timing;
  ExecutionReport report;
};

class PreparedModel {
 public:
  // Runs the request's inputs (one per main.inputIndexes; hasNoValue = omitted).
  hal::Result<ExecutionResult> execute(const hal::Request& request);
  const ModelPlan& plan() const { return plan_; }

 private:
  friend class NnapiDriver;
  PreparedModel(hal::Model model, ModelPlan plan, NpuDevice& device, double clockMHz)
      : model_(std::move(model)), plan_(std::move(plan)), device_(device), clockMHz_(clockMHz) {}
  hal::Model model_;
  ModelPlan plan_;
  NpuDevice& device_;
  double clockMHz_;
};

class NnapiDriver {
 public:
  NnapiDriver(NpuDevice& device, double clockMHz) : device_(device), clockMHz_(clockMHz) {}

  const hal::Capabilities& getCapabilities();
  // One entry per main-subgraph operation, after structural and signature validation.
  hal::Result<std::vector<OperationSupport>> getSupportedOperations(const hal::Model& model);
  hal::Result<std::unique_ptr<PreparedModel>> prepareModel(const hal::Model& model,
                                                           hal::ExecutionPreference preference);
  // The measured calibration behind getCapabilities(): NPU and CPU microseconds.
  struct Calibration {
    double npuMicros = 0, cpuMicros = 0;
  };
  double calibrationNpuMicros() const { return npuMicros_; }
  double calibrationCpuMicros() const { return cpuMicros_; }
  const Calibration& calibration16x8() const { return wide_; }  // the 16x8-mode layer

 private:
  hal::Result<Calibration> measure(bool wide);
  hal::Status calibrate();
  NpuDevice& device_;
  double clockMHz_;
  bool calibrated_ = false;
  hal::Capabilities caps_;
  double npuMicros_ = 0, cpuMicros_ = 0;
  Calibration wide_;
};

}  // namespace nncosim::driver
