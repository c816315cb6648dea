#include "driver/backend/reference_backend.h"

#include "hal/validation.h"
#include "ops/executor.h"

namespace nncosim::driver {

hal::Status validateFully(const hal::Model& model) {
  auto issues = hal::validateModel(model);
  if (!issues.empty()) {
    std::string msg = "invalid model: " + issues.front().str();
    if (issues.size() > 1) msg += " (and " + std::to_string(issues.size() - 1) + " more)";
    return hal::Error{msg};
  }
  if (auto st = ops::validateOperations(model); !st.ok()) return hal::Error{"invalid operation: " + st.error()};
  return hal::Status::Ok();
}

std::optional<hal::OperationType> ReferenceBackend::unsupportedOperation(const hal::Model& model) {
  return ops::firstUnsupportedOperation(model);
}

hal::Status ReferenceBackend::execute(const hal::Model& model,
                                      const std::vector<hal::TensorValue>& inputs,
                                      std::vector<hal::TensorValue>& outputs,
                                      ExecutionStats* stats) {
  NNC_TRY(validateFully(model));
  ops::Executor exec(model);
  NNC_TRY(exec.run(inputs, outputs));
  if (stats) stats->cpuSteps += static_cast<int>(model.main.operations.size());
  return hal::Status::Ok();
}

}  // namespace nncosim::driver
