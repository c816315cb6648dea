// ReferenceBackend: every operation on the software reference (ops/).
#pragma once

#include "driver/backend/backend.h"

namespace nncosim::driver {

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "ref"; }
  std::optional<hal::OperationType> unsupportedOperation(const hal::Model& model) override;
  hal::Status execute(const hal::Model& model, const std::vector<hal::TensorValue>& inputs,
                      std::vector<hal::TensorValue>& outputs, ExecutionStats* stats) override;
};

// Structural validation (hal) followed by every operation's validate (ops), as the
// NNAPI runtime and a driver do before execution. The first problem, with context.
hal::Status validateFully(const hal::Model& model);

}  // namespace nncosim::driver
