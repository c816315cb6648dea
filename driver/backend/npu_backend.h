// NpuBackend: executes models through the driver: the partitioner puts NPU-eligible
// operations on the NPU (compiled to command streams, run on an NpuDevice: the
// simulated SoC or the ISA interpreter), everything else on the software reference.
#pragma once

#include <functional>
#include <memory>

#include "driver/backend/backend.h"
#include "driver/compiler/runtime.h"

namespace nncosim::driver {

class NpuBackend : public Backend {
 public:
  // `device` is created on first use (a simulated SoC elaborates once per process).
  NpuBackend(std::string name, std::function<NpuDevice&()> device, LoweringOptions options = {});
  std::string name() const override { return name_; }
  std::optional<hal::OperationType> unsupportedOperation(const hal::Model& model) override;
  hal::Status execute(const hal::Model& model, const std::vector<hal::TensorValue>& inputs,
                      std::vector<hal::TensorValue>& outputs, ExecutionStats* stats) override;
  // The report of the last execution (steps, placements, cycles).
  const ExecutionReport& lastReport() const { return report_; }
  const ModelPlan* lastPlan() const { return plan_ ? plan_.get() : nullptr; }
  NpuDevice& device() { return device_(); }
  // Cross-check every NPU step against the reference (ExecutionReport::Step::mismatch).
  void setCrossCheck(bool on) { crossCheck_ = on; }

 private:
  std::string name_;
  std::function<NpuDevice&()> device_;
  LoweringOptions options_;
  ExecutionReport report_;
  std::unique_ptr<ModelPlan> plan_;
  bool crossCheck_ = false;
};

}  // namespace nncosim::driver
