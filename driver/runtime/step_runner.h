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
// Resident bindings (Binding::resident) move nothing: their input is already in place
// (its entry in `inputs` is not read), their output stays on the device (an empty entry
// in `outputs`) unless `readResident` (a cross-check reads it back; off the books).
// `host` (optional) adds what the host did: the bytes it packed, copied and unpacked and
// the time those passes took here.
hal::Result<JobStats> runPlaced(NpuDevice& device, const CompiledStep& step,
                                const std::vector<uint64_t>& placement, bool uploadConstants,
                                const std::vector<const std::vector<uint8_t>*>& inputs,
                                std::vector<std::vector<uint8_t>>& outputs,
                                std::vector<std::vector<uint8_t>>& results,
                                HostWork* host = nullptr, bool readResident = true);

// Reads output binding `b` of `step` (placed at `placement`) back and unpacks it into the
// model layout: a resident output that a host reader needs after all.
hal::Result<std::vector<uint8_t>> readOutput(NpuDevice& device, const CompiledStep& step,
                                             const std::vector<uint64_t>& placement,
                                             const Binding& b);

}  // namespace nncosim::driver
