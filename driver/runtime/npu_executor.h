// NpuExecutor: runs a whole model by its plan, NPU steps on an NpuDevice and every other
// operation on the reference (ops/), with an ExecutionReport of every step. A hybrid step
// (CompiledStep::epilogue) runs its jobs on the device, then its host epilogue finishes
// the operation on the CPU.
//
//   ModelPlan plan = compileModel(model, options);        // once per model
//   InterpreterDevice dev(options.npu);                    // or SimNpuDevice over sim::Device
//   NpuExecutor ex(model, plan, dev);
//   ex.run(inputs, outputs, &report);                      // per execution
//
// The model must be valid (NnapiDriver::prepareModel validates it once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/compiler/host_model.h"
#include "driver/compiler/model_plan.h"
#include "driver/isa_model/energy_model.h"
#include "driver/runtime/npu_device.h"
#include "hal/model.h"
#include "hal/tensor_value.h"

namespace nncosim::driver {

// ---------------------------------------------------------------------------------------
// Model execution

struct ExecutionReport {
  struct Step {
    uint32_t operation = 0;
    hal::OperationType type = hal::OperationType::ADD;
    Target target = Target::kCpu;
    std::string note;  // CPU: the partition reason; NPU: the plan summary
    JobStats stats;    // NPU steps
    // NPU steps: the compiler's estimate of the step's cycles (its cost model, at the
    // SoC's DRAM settings), beside what the device counted (0 if it made none).
    uint64_t estimatedCycles = 0;
    uint64_t macs = 0;           // multiply-accumulates of the operation (its shapes)
    uint64_t depthwiseMacs = 0;  // of them, a DEPTHWISE_CONV_2D's (a fused step's too)
    uint64_t wallNanos = 0;      // wall time of the step here (NPU steps: with the simulation)
    uint64_t startCycle = 0;     // NPU cycles before this step (a timeline of the run)
    // The host's share: bytes packed, copied and unpacked, CPU kernels, measured here,
    // and its time on the modelled host (LoweringOptions::host).
    HostWork host;
    double hostNanos = 0;
    // Energy on the model's per-event energies (NPU events from the step's stream and
    // counters, the host's DRAM bytes); the host core's own energy is not modelled.
    EnergyBreakdown energy;
    bool checked = false;  // cross-checked against the reference
    std::string mismatch;  // first difference when the check failed
  };
  std::vector<Step> steps;
  uint64_t npuCycles = 0;
  HostModel hostModel;   // the model the steps' hostNanos use
  HostWork host;         // every step's, summed
  double hostNanos = 0;  // every step's on the modelled host
  EnergyModel energyModel;
  EnergyBreakdown energy;  // every step's
  // The plan's constants, uploaded by the first execution on a device (not in the steps).
  uint64_t uploadBytes = 0, uploadNanos = 0;
  int npuSteps = 0, cpuSteps = 0;
  int mismatches = 0;  // NPU steps whose cross-check failed
  std::string describe() const;
};

class NpuExecutor {
 public:
  NpuExecutor(const hal::Model& model, const ModelPlan& plan, NpuDevice& device);
  // Validates and runs the main subgraph (inputs per main.inputIndexes).
  hal::Status run(const std::vector<hal::TensorValue>& inputs,
                  std::vector<hal::TensorValue>& outputs, ExecutionReport* report = nullptr);
  // Also run every NPU step on the reference with the same inputs and compare bit for
  // bit (the NPU's result is still the one the run continues with).
  void setCrossCheck(bool on) { crossCheck_ = on; }

 private:
  hal::Status upload(ExecutionReport& rep);

  const hal::Model& model_;
  const ModelPlan& plan_;
  NpuDevice& device_;
  uint64_t arena_ = 0;
  bool uploaded_ = false;
  bool crossCheck_ = false;
};

}  // namespace nncosim::driver
