// A one-operation model builder for the movement operation tests: inputs are model
// inputs or constants, runs go through validateOperations and the Executor.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "hal/half.h"
#include "ops/executor.h"

namespace nncosim::ops::movement_test {

using hal::OperandLifeTime;
using hal::OperandType;
using hal::OperationType;

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
std::vector<T> valuesOf(const hal::TensorValue& t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

class OpModel {
 public:
  // A model input with the given value.
  template <typename T>
  OpModel& input(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& value,
                 float scale = 0.0f, int32_t zeroPoint = 0) {
    const uint32_t k = add(type, dims, OperandLifeTime::SUBGRAPH_INPUT, scale, zeroPoint);
    model_.main.inputIndexes.push_back(k);
    hal::TensorValue v;
    v.type = type;
    v.dimensions = std::move(dims);
    v.bytes = bytesOf(value);
    inputs_.push_back(std::move(v));
    opInputs_.push_back(k);
    return *this;
  }
  // A constant (CONSTANT_COPY) input.
  template <typename T>
  OpModel& constant(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& value) {
    const uint32_t k = add(type, std::move(dims), OperandLifeTime::CONSTANT_COPY, 0.0f, 0);
    hal::Operand& o = model_.main.operands[k];
    const std::vector<uint8_t> b = bytesOf(value);
    o.location.offset = static_cast<uint32_t>(model_.operandValues.size());
    o.location.length = static_cast<uint32_t>(b.size());
    model_.operandValues.insert(model_.operandValues.end(), b.begin(), b.end());
    opInputs_.push_back(k);
    return *this;
  }
  OpModel& scalarI32(int32_t v) {
    return constant(OperandType::INT32, {}, std::vector<int32_t>{v});
  }
  OpModel& scalarF32(float v) { return constant(OperandType::FLOAT32, {}, std::vector<float>{v}); }
  OpModel& scalarBool(bool v) {
    return constant(OperandType::BOOL, {}, std::vector<uint8_t>{static_cast<uint8_t>(v)});
  }
  OpModel& tensorI32(std::vector<int32_t> v) {
    return constant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(v.size())}, v);
  }
  // An omitted (NO_VALUE) input.
  OpModel& omitted(OperandType type) {
    opInputs_.push_back(add(type, {}, OperandLifeTime::NO_VALUE, 0.0f, 0));
    return *this;
  }
  // A model output; dims of 0 are unknown.
  OpModel& output(OperandType type, std::vector<uint32_t> dims, float scale = 0.0f,
                  int32_t zeroPoint = 0) {
    const uint32_t k =
        add(type, std::move(dims), OperandLifeTime::SUBGRAPH_OUTPUT, scale, zeroPoint);
    model_.main.outputIndexes.push_back(k);
    opOutputs_.push_back(k);
    return *this;
  }

  // Validates and runs `type` over the inputs and outputs added so far. Returns "" on
  // success, else the error message.
  std::string run(OperationType type, std::vector<hal::TensorValue>* outputs) {
    model_.main.operations = {hal::Operation{type, opInputs_, opOutputs_}};
    if (Status st = validateOperations(model_); !st.ok()) return "validate: " + st.error();
    Executor ex(model_);
    Status st = ex.run(inputs_, *outputs);
    return st.ok() ? std::string() : st.error();
  }

 private:
  uint32_t add(OperandType type, std::vector<uint32_t> dims, OperandLifeTime life, float scale,
               int32_t zeroPoint) {
    hal::Operand o;
    o.type = type;
    o.dimensions = std::move(dims);
    o.lifetime = life;
    o.scale = scale;
    o.zeroPoint = zeroPoint;
    model_.main.operands.push_back(o);
    return static_cast<uint32_t>(model_.main.operands.size() - 1);
  }

  hal::Model model_;
  std::vector<hal::TensorValue> inputs_;
  std::vector<uint32_t> opInputs_, opOutputs_;
};

}  // namespace nncosim::ops::movement_test
