#include "driver/backend/npu_backend.h"

#include "driver/backend/reference_backend.h"
#include "ops/executor.h"

namespace nncosim::driver {

NpuBackend::NpuBackend(std::string name, std::function<NpuDevice&()> device, LoweringOptions options)
    : name_(std::move(name)), device_(std::move(device)), options_(options) {}

std::optional<hal::OperationType> NpuBackend::unsupportedOperation(const hal::Model& model) {
  // Every operation has a reference implementation to fall back on.
  return ops::firstUnsupportedOperation(model);
}

hal::Status NpuBackend::execute(const hal::Model& model, const std::vector<hal::TensorValue>& inputs,
                                std::vector<hal::TensorValue>& outputs, ExecutionStats* stats) {
  NNC_TRY(validateFully(model));
  auto plan = compileModel(model, options_);
  if (!plan) return hal::Error{"compile: " + plan.error()};
  plan_ = std::make_unique<ModelPlan>(std::move(*plan));
  NpuDevice& dev = device_();
  // Nothing of a previous execution is reused: its device memory goes back first, so a
  // long-lived backend (conformance workers, difftest) never runs out.
  dev.freeAll();
  NpuExecutor ex(model, *plan_, dev);
  ex.setCrossCheck(crossCheck_);
  dev.resetTimeline();
  report_ = ExecutionReport{};
  NNC_TRY(ex.run(inputs, outputs, &report_));
  if (stats) {
    stats->npuSteps += report_.npuSteps;
    stats->cpuSteps += report_.cpuSteps;
  }
  return hal::Status::Ok();
}

}  // namespace nncosim::driver
