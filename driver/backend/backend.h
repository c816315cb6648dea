// Backend: something that executes a whole model: the software reference, or the
// driver on the simulated NPU. The conformance runner and `nncosim run` use it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hal/model.h"
#include "hal/result.h"
#include "hal/tensor_value.h"

namespace nncosim::driver {

// What one execution did, beyond its outputs.
struct ExecutionStats {
  int npuSteps = 0;  // operations that ran on the NPU
  int cpuSteps = 0;  // operations that ran on the reference
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // An operation the backend cannot run at all (not implemented anywhere), if any.
  virtual std::optional<hal::OperationType> unsupportedOperation(const hal::Model& model) = 0;
  // Validates (structure and every operation's signature) and executes the model.
  virtual hal::Status execute(const hal::Model& model, const std::vector<hal::TensorValue>& inputs,
                              std::vector<hal::TensorValue>& outputs, ExecutionStats* stats) = 0;
};

}  // namespace nncosim::driver
