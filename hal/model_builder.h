// ModelBuilder: builds a Model in C++ (demo networks, tests, generators) with the
// same layout the file readers produce.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "hal/model.h"

namespace nncosim::hal {

class ModelBuilder {
 public:
  ModelBuilder() = default;
  // Goes on building `model` (its operands, operations and indexes as they are).
  explicit ModelBuilder(Model model) : model_(std::move(model)) {}
  // A tensor or scalar operand with the given lifetime (no value); returns its index.
  uint32_t addOperand(OperandType type, std::vector<uint32_t> dims, float scale = 0.0f,
                      int32_t zeroPoint = 0,
                      OperandLifeTime lifetime = OperandLifeTime::TEMPORARY_VARIABLE,
                      std::string name = {});
  uint32_t addInput(OperandType type, std::vector<uint32_t> dims, float scale = 0.0f,
                    int32_t zeroPoint = 0, std::string name = {});
  uint32_t addOutput(OperandType type, std::vector<uint32_t> dims, float scale = 0.0f,
                     int32_t zeroPoint = 0, std::string name = {});
  // A CONSTANT_COPY operand holding `bytes`.
  uint32_t addConstant(OperandType type, std::vector<uint32_t> dims, const void* bytes, size_t size,
                       float scale = 0.0f, int32_t zeroPoint = 0, std::string name = {});
  template <typename T>
  uint32_t addConstant(OperandType type, std::vector<uint32_t> dims, const std::vector<T>& values,
                       float scale = 0.0f, int32_t zeroPoint = 0, std::string name = {}) {
    return addConstant(type, std::move(dims), values.data(), values.size() * sizeof(T), scale,
                       zeroPoint, std::move(name));
  }
  uint32_t addInt32(int32_t v) { return addConstant(OperandType::INT32, {}, &v, 4); }
  uint32_t addFloat32(float v) { return addConstant(OperandType::FLOAT32, {}, &v, 4); }
  uint32_t addBool(bool v) {
    uint8_t b = v ? 1 : 0;
    return addConstant(OperandType::BOOL, {}, &b, 1);
  }
  void setChannelQuant(uint32_t operand, std::vector<float> scales, uint32_t channelDim);
  void addOperation(OperationType type, std::vector<uint32_t> inputs,
                    std::vector<uint32_t> outputs);
  void setRelaxed(bool relaxed) { model_.relaxComputationFloat32toFloat16 = relaxed; }
  void setQuant16x8(bool on) { model_.quant16x8 = on; }
  Model build() { return std::move(model_); }

 private:
  Model model_;
};

}  // namespace nncosim::hal
