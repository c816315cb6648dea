// Helpers for the compiler tests: one-operation models, the reference's answer, and the
// NPU path (lowering + ISA interpreter) on the same inputs.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "driver/compiler/lowering.h"
#include "driver/compiler/model_plan.h"
#include "driver/runtime/interpreter_device.h"
#include "driver/runtime/npu_executor.h"
#include "driver/runtime/step_runner.h"
#include "tests/driver/array16.h"
#include "tests/util/one_op_model.h"

namespace nncosim::driver::test {

using hal::OperandType;
using hal::OperationType;

// One-operation models: the shared test helper (lower them with build(), feed inputs()).
using OneOpModel = test_util::OneOpModel;

// The reference's outputs (error text on failure).
using test_util::referenceRun;

struct NpuRun {
  std::string error;  // empty on success
  std::vector<std::vector<uint8_t>> outputs;
  CompiledStep step;
  JobStats stats;
  uint64_t estimatedCycles = 0;  // the compiler's timing-only estimate
};

// Lowers operation 0 of a one-operation model and runs it on a strict interpreter device.
inline NpuRun npuRun(const hal::Model& model, const std::vector<hal::TensorValue>& inputs,
                     const LoweringOptions& options, const CostModel& cost = {}) {
  NpuRun r;
  auto step = lowerOperation(model, 0, declaredShapes(model), options);
  if (!step.ok()) {
    r.error = "lower: " + step.error();
    return r;
  }
  r.step = std::move(*step);
  std::vector<std::vector<uint8_t>> in;
  for (const Binding& b : r.step.inputs) {
    size_t k = 0;
    while (k < model.main.inputIndexes.size() && model.main.inputIndexes[k] != b.operand) ++k;
    if (k == model.main.inputIndexes.size()) {
      r.error = "binding of a non-input operand";
      return r;
    }
    in.push_back(inputs[k].bytes);
  }
  InterpreterDevice dev(options.npu, 64ull << 20, cost);
  auto stats = runStep(dev, r.step, in, r.outputs);
  if (!stats.ok()) {
    r.error = "run: " + stats.error();
    return r;
  }
  r.stats = *stats;
  r.estimatedCycles = r.step.report.estimatedCycles;
  r.step.report.estimatedCycles = stats->cycles;
  return r;
}

// A small NPU whose buffers force every multi-phase, streamed and chunked path.
inline NpuConfig tinyNpu() {
  NpuConfig c = array16();  // the same few tiles fit whatever the build's array
  c.inpBytes = 1024;        // k chunks of 32 (double-buffered) with resident weights up to 128 deep
  c.wgtBytes = 4096;
  c.accBytes = 4096;
  c.outBytes = 1024;
  c.prmBytes = 640;
  return c;
}

}  // namespace nncosim::driver::test
