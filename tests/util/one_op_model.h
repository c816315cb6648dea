// A one-operation model for tests: tensors fed as model inputs (with their values),
// parameters as constants, omitted operands as NO_VALUE. run() validates and executes it
// on the reference as the driver would; build() hands the model to other paths (the
// compiler tests lower it and run it on the NPU). Used by the conv, recurrent and compiler
// tests.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "hal/model_builder.h"
#include "ops/executor.h"

namespace nncosim::test_util {

using hal::OperandType;
using hal::OperationType;

// Validates `model` and runs it on the reference; the error of the first stage that fails
// ("validate: ...", "run: ..."), or "" with `outputs` filled.
inline std::string referenceRun(const hal::Model& model,
                                const std::vector<hal::TensorValue>& inputs,
                                std::vector<hal::TensorValue>& outputs) {
  if (hal::Status st = ops::validateOperations(model); !st.ok()) return "validate: " + st.error();
  ops::Executor ex(model);
  outputs.clear();
  if (hal::Status st = ex.run(inputs, outputs); !st.ok()) return "run: " + st.error();
  return "";
}

class OneOpModel {
 public:
  // A model input holding `values` (element type T matches `type`).
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
  uint32_t floats(std::vector<uint32_t> dims, const std::vector<float>& values) {
    return input(OperandType::TENSOR_FLOAT32, std::move(dims), values);
  }
  template <typename T>
  uint32_t constant(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                    float scale = 0.0f, int32_t zeroPoint = 0) {
    return b_.addConstant(type, std::move(dims), values, scale, zeroPoint);
  }
  // An optional operand left out (NO_VALUE).
  uint32_t omitted(OperandType type = OperandType::TENSOR_FLOAT32) {
    return b_.addOperand(type, {}, 0.0f, 0, hal::OperandLifeTime::NO_VALUE);
  }
  uint32_t i32(int32_t v) { return b_.addInt32(v); }
  uint32_t f32(float v) { return b_.addFloat32(v); }
  uint32_t flag(bool v) { return b_.addBool(v); }
  uint32_t output(OperandType type, std::vector<uint32_t> dims, float scale = 0.0f,
                  int32_t zeroPoint = 0) {
    return b_.addOutput(type, std::move(dims), scale, zeroPoint);
  }
  uint32_t outFloats(std::vector<uint32_t> dims) {
    return output(OperandType::TENSOR_FLOAT32, std::move(dims));
  }
  void channelQuant(uint32_t operand, std::vector<float> scales, uint32_t dim) {
    b_.setChannelQuant(operand, std::move(scales), dim);
  }
  // Selects the 16x8 quantization mode for the model.
  void quant16x8(bool on = true) { b_.setQuant16x8(on); }
  void op(OperationType type, std::vector<uint32_t> in, std::vector<uint32_t> out) {
    b_.addOperation(type, std::move(in), std::move(out));
  }

  // The model as built so far, and the values of its inputs in input order.
  hal::Model build() { return b_.build(); }
  const std::vector<hal::TensorValue>& inputs() const { return inputs_; }

  // Validates and runs on the reference; the error of the first stage that fails, or ""
  // on success.
  std::string run() {
    model_ = b_.build();
    return referenceRun(model_, inputs_, outputs_);
  }
  // Output i of the last run() as elements of T, and its dimensions.
  template <typename T>
  std::vector<T> result(size_t i = 0) const {
    const hal::TensorValue& v = outputs_.at(i);
    std::vector<T> r(v.bytes.size() / sizeof(T));
    if (!r.empty()) std::memcpy(r.data(), v.bytes.data(), v.bytes.size());
    return r;
  }
  const std::vector<uint32_t>& resultDims(size_t i = 0) const { return outputs_.at(i).dimensions; }

 private:
  hal::ModelBuilder b_;
  hal::Model model_;
  std::vector<hal::TensorValue> inputs_;
  std::vector<hal::TensorValue> outputs_;
};

}  // namespace nncosim::test_util
