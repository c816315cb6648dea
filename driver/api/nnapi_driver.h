// NnapiDriver: the HAL-like API of the driver, shaped like an NNAPI device, and the one
// front door every user path takes (`nncosim run`, conformance, difftest, capabilities):
//
//   NnapiDriver drv(&device);                      // an NpuDevice (SoC or ISA model), or
//                                                  // nullptr: everything on the reference
//   Capabilities caps = drv.getCapabilities();     // measured, see below
//   auto support = drv.getSupportedOperations(model);
//   auto prepared = drv.prepareModel(model, ExecutionPreference::FAST_SINGLE_ANSWER);
//   auto result = prepared->execute(request);      // outputs, shapes, timing, step report
//
// prepareModel validates the model once (structure, then every operation's signature with
// the declared shapes) and compiles it; execute() checks only what an execution adds (the
// request's values and shapes). The compiler and runtime below never validate again.
//
// Device memory holds one prepared model at a time: executing a model that is not
// resident frees the device and uploads its constants first (a conformance worker runs
// thousands of models on one device); executing it again reuses them.
//
// Capabilities are measured, not invented: on first use the driver times a calibration
// layer (a quantized 3x3 CONV_2D, 32x32x32 -> 32 channels) on the NPU (its cycles at
// the device clock) and on the software reference (host wall time, median of 5), and
// reports the ratio NPU/CPU as execTime for quant8 work (the NPU's time end to end: device
// cycles plus the host's passes around the step); the same layer in the 16x8 mode (int16
// activations) gives TENSOR_QUANT16_SYMM's entry. powerUsage is the energy ratio: the NPU
// step on the energy model (driver/isa_model/energy_model.h) against the reference's time on
// the modelled host x its core power. Float work and every operation without NPU support
// run on the reference, so their ratios are 1.0 by construction (docs/driver.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/compiler/model_plan.h"
#include "driver/runtime/npu_device.h"
#include "driver/runtime/npu_executor.h"
#include "hal/capabilities.h"
#include "hal/model.h"
#include "hal/request.h"
#include "hal/tensor_value.h"

namespace nncosim::driver {

struct OperationSupport {
  bool supported = false;  // the driver can execute it (on the NPU or its fallback)
  bool onNpu = false;      // and it would run on the NPU
  std::string reason;      // why not supported, or why it stays on the CPU
};

struct Timing {
  uint64_t npuCycles = 0;            // all NPU steps
  double npuMicros = 0;              // npuCycles at the device clock
  double cpuMicros = 0;              // host time of the CPU steps, measured here
  double hostMicros = 0;             // every host pass and CPU step on the modelled host
  double endToEndMicros = 0;         // npuMicros + hostMicros: the whole network's time
  std::vector<uint64_t> stepCycles;  // per main-subgraph operation (0 on the CPU)
};

struct ExecutionResult {
  std::vector<hal::TensorValue> outputs;
  std::vector<hal::OutputShape> outputShapes;
  Timing timing;
  ExecutionReport report;  // every step: where it ran, why, its cycles (NPU) or host time
  // Every command the device ran in this execution, on the job clock (devices that
  // cannot observe their units leave it empty).
  std::vector<NpuDevice::CommandSpan> commands;
};

struct ExecuteOptions {
  // Also run every NPU step on the reference and compare bit for bit
  // (ExecutionReport::Step::mismatch); the run continues with the NPU's result.
  bool crossCheck = false;
};

struct DriverOptions {
  double clockMHz = 1000;  // the device clock: cycles -> microseconds
  // The compiler's settings (e.g. difftest --mapping's ConvMapping); its `npu` comes from
  // the device and its `preference` from prepareModel.
  LoweringOptions lowering;
};

class NnapiDriver;

class PreparedModel {
 public:
  ~PreparedModel();
  PreparedModel(const PreparedModel&) = delete;
  PreparedModel& operator=(const PreparedModel&) = delete;

  // Runs the request's inputs (one per main.inputIndexes; hasNoValue = omitted).
  hal::Result<ExecutionResult> execute(const hal::Request& request,
                                       const ExecuteOptions& options = {});
  // The same with the inputs as tensor values (omitted = TensorValue::omitted).
  hal::Result<ExecutionResult> execute(const std::vector<hal::TensorValue>& inputs,
                                       const ExecuteOptions& options = {});
  // The compiled plan; nullptr on a driver without an NPU.
  const ModelPlan* plan() const { return plan_ ? plan_.get() : nullptr; }
  const hal::Model& model() const { return model_; }

 private:
  friend class NnapiDriver;
  PreparedModel(NnapiDriver& driver, hal::Model model, std::unique_ptr<ModelPlan> plan)
      : driver_(driver), model_(std::move(model)), plan_(std::move(plan)) {}
  NnapiDriver& driver_;
  hal::Model model_;
  std::unique_ptr<ModelPlan> plan_;
  std::unique_ptr<NpuExecutor> executor_;  // while its constants are resident
};

class NnapiDriver {
 public:
  // `device` == nullptr: a driver without an NPU (every operation on the reference).
  // The device and this driver outlive every model it prepares.
  explicit NnapiDriver(NpuDevice* device, const DriverOptions& options = {})
      : device_(device), options_(options) {}

  NpuDevice* device() const { return device_; }
  double clockMHz() const { return options_.clockMHz; }

  const hal::Capabilities& getCapabilities();
  // One entry per main-subgraph operation, after structural and signature validation.
  hal::Result<std::vector<OperationSupport>> getSupportedOperations(const hal::Model& model);
  // `fuseLayers` (optional) overrides the driver's LoweringOptions::fuseLayers for this
  // model: fused steps or every operation its own step.
  hal::Result<std::unique_ptr<PreparedModel>> prepareModel(
      const hal::Model& model, hal::ExecutionPreference preference,
      std::optional<bool> fuseLayers = std::nullopt);

  // The measured calibration behind getCapabilities(): NPU and CPU microseconds.
  struct Calibration {
    double npuMicros = 0, cpuMicros = 0;
    // Energy: the NPU step's on the energy model (its events and host DRAM bytes), the
    // reference's as its time on the modelled host x the core's power.
    double npuPicojoules = 0, cpuPicojoules = 0;
  };
  double calibrationNpuMicros() const { return npuMicros_; }
  double calibrationCpuMicros() const { return cpuMicros_; }
  const Calibration& calibration() const { return narrow_; }    // the int8 layer
  const Calibration& calibration16x8() const { return wide_; }  // the 16x8-mode layer

 private:
  friend class PreparedModel;
  hal::Result<Calibration> measure(bool wide);
  hal::Status calibrate();
  NpuDevice* device_;
  DriverOptions options_;
  const PreparedModel* resident_ = nullptr;  // whose constants the device memory holds
  bool calibrated_ = false;
  hal::Capabilities caps_;
  double npuMicros_ = 0, cpuMicros_ = 0;
  Calibration narrow_, wide_;
};

// Structure (hal::validateModel), then every operation's signature with the declared
// shapes (ops::validateOperations): the one validation of a preparation.
hal::Status validateModelForExecution(const hal::Model& model);

}  // namespace nncosim::driver
