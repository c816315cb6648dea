// A one-operation model for the conv family's tests: tensors fed as inputs, parameters as
// constants, run through validateOperations and the Executor as the driver would.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "hal/model_builder.h"
#include "ops/executor.h"

namespace nncosim::ops::conv_test {

using hal::OperandType;
using hal::OperationType;

class OneOp {
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
  // Selects the 16x8 quantization mode for the model.
  void quant16x8(bool on = true) { b_.setQuant16x8(on); }
  void op(OperationType type, std::vector<uint32_t> in, std::vector<uint32_t> out) {
    b_.addOperation(type, std::move(in), std::move(out));
  }

  // Validates and runs; the error of the first stage that fails, or "" on success.
  std::string run() {
    model_ = b_.build();
    if (Status st = validateOperations(model_); !st.ok()) return "validate: " + st.error();
    Executor ex(model_);
    outputs_.clear();
    if (Status st = ex.run(inputs_, outputs_); !st.ok()) return "run: " + st.error();
    return "";
  }

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

}  // namespace nncosim::ops::conv_test
