// Running compiled steps on a device: one step alone (runStep, for tests and single-step
// tools) and a step placed in a model's arena (runPlaced, the executor's inner loop).
#pragma once

#include <cstdint>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/host_model.h"
#include "driver/runtime/npu_device.h"

namespace nncosim::driver {

// Runs one compiled step alone: allocates its buffers, uploads constants and inputs
// (operand bytes in the model's layout, by the step's input bindings, in order), runs the
// job and reads the outputs back (model layout), then a hybrid step's epilogue results
// (raw device bytes; the host epilogue needs the whole operation, so it is not run here).
// For tests and single-step tools.
hal::Result<JobStats> runStep(NpuDevice& device, const CompiledStep& step,
                              const std::vector<std::vector<uint8_t>>& inputs,
                              std::vector<std::vector<uint8_t>>& outputs);

// Allocates nothing: uploads the step's constants (when `uploadConstants`) and `inputs`
// at `placement` (one address per step buffer), runs, reads `outputs` (the output
// bindings, model layout) and `results` (a hybrid step's epilogue buffers, raw).
// `host` (optional) adds what the host did: the bytes it packed, copied and unpacked and
// the time those passes took here.
hal::Result<JobStats> runPlaced(NpuDevice& device, const CompiledStep& step,
                                const std::vector<uint64_t>& placement, bool uploadConstants,
                                const std::vector<const std::vector<uint8_t>*>& inputs,
                                std::vector<std::vector<uint8_t>>& outputs,
                                std::vector<std::vector<uint8_t>>& results,
                                HostWork* host = nullptr);

}  // namespace nncosim::driver
