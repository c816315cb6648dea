// Helpers for the compiler tests: one-operation models, the reference's answer, and the
// NPU path (lowering + ISA interpreter) on the same inputs.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "driver/compiler/lowering.h"
#include "driver/compiler/runtime.h"
#include "hal/model_builder.h"
#include "ops/executor.h"

namespace nncosim::driver::test {

using hal::OperandType;
using hal::OperationType;

// A one-operation model under construction, with its input values.
class OneOpModel {
 public:
  template <typename T>
  uint32_t input(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                 float scale = 0.0f, int32_t zeroPoint = 0) {
    const uint32_t i = b_.addInput(type, dims, scale, zeroPoint);
    hal::TensorValue v;
    v.type = type;
    v.dimensions = std::move(dims);
    v.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(v.bytes.data(), values.data(), v.bytes.size());
    inputs_.push_back(std::move(v));
    return i;
  }
  template <typename T>
  uint32_t constant(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                    float scale = 0.0f, int32_t zeroPoint = 0) {
    return b_.addConstant(type, std::move(dims), values, scale, zeroPoint);
  }
  uint32_t i32(int32_t v) { return b_.addInt32(v); }
  uint32_t flag(bool v) { return b_.addBool(v); }
  uint32_t output(OperandType type, std::vector<uint32_t> dims, float scale = 0.0f,
                  int32_t zeroPoint = 0) {
    return b_.addOutput(type, std::move(dims), scale, zeroPoint);
  }
  void channelQuant(uint32_t operand, std::vector<float> scales, uint32_t dim) {
    b_.setChannelQuant(operand, std::move(scales), dim);
  }
  void op(OperationType type, std::vector<uint32_t> in, std::vector<uint32_t> out) {
    b_.addOperation(type, std::move(in), std::move(out));
  }
  hal::Model build() { return b_.build(); }
  const std::vector<hal::TensorValue>& inputs() const { return inputs_; }

 private:
  hal::ModelBuilder b_;
  std::vector<hal::TensorValue> inputs_;
};

// The reference's outputs (error text on failure).
inline std::string referenceRun(const hal::Model& model, const std::vector<hal::TensorValue>& inputs,
                                std::vector<hal::TensorValue>& outputs) {
  if (hal::Status st = ops::validateOperations(model); !st.ok()) return "validate: " + st.error();
  ops::Executor ex(model);
  if (hal::Status st = ex.run(inputs, outputs); !st.ok()) return "run: " + st.error();
  return "";
}

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
  NpuConfig c;
  c.inpBytes = 1024;  // k chunks of 32 (double-buffered) with resident weights up to 128 deep
  c.wgtBytes = 4096;
  c.accBytes = 4096;
  c.outBytes = 1024;
  c.prmBytes = 640;
  return c;
}

}  // namespace nncosim::driver::test
