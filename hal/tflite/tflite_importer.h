// The importer's state (internal to hal/tflite): the model being built, the operand of
// each tensor already mapped, and the per-operator view the builtin mappings use.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "hal/model.h"
#include "hal/tflite/tflite_import.h"
#include "tflite_subset_generated.h"

namespace nncosim::tflite {

class Importer {
 public:
  Importer(const TfliteFile& file, const ImportOptions& options);
  hal::Result<hal::Model> run();

  // The operand of tensor `t` (created on first use).
  hal::Result<uint32_t> operandOf(int32_t t);
  const fb::Tensor& tensor(int32_t t) const { return *graph_->tensors()->Get(t); }
  // Raw bytes of a constant tensor, or nullptr when it has no buffer data.
  const uint8_t* constantBytes(int32_t t, size_t* size) const;

  // New operands the mappings need: scalar and small-tensor constants, temporaries.
  uint32_t int32Scalar(int32_t v) { return constant(hal::OperandType::INT32, {}, &v, 4); }
  uint32_t floatScalar(float v) { return constant(hal::OperandType::FLOAT32, {}, &v, 4); }
  uint32_t boolScalar(bool v) {
    const uint8_t b = v ? 1 : 0;
    return constant(hal::OperandType::BOOL, {}, &b, 1);
  }
  uint32_t int32Tensor(const std::vector<int32_t>& v) {
    return constant(hal::OperandType::TENSOR_INT32, {static_cast<uint32_t>(v.size())}, v.data(),
                    v.size() * 4);
  }
  // A CONSTANT_COPY operand holding `bytes`.
  uint32_t constant(hal::OperandType type, std::vector<uint32_t> dims, const void* bytes,
                    size_t size, float scale = 0.0f, int32_t zeroPoint = 0);
  // A TEMPORARY_VARIABLE with the type and quantization of `like` and new dimensions.
  uint32_t temporary(const hal::Operand& like, std::vector<uint32_t> dims);
  const hal::Operand& operand(uint32_t i) const { return model_.main.operands.at(i); }
  hal::Operand& operand(uint32_t i) { return model_.main.operands.at(i); }
  void emit(hal::OperationType type, std::vector<uint32_t> in, std::vector<uint32_t> out) {
    model_.main.operations.push_back(hal::Operation{type, std::move(in), std::move(out)});
  }

 private:
  hal::Result<uint32_t> createOperand(int32_t t);

  const TfliteFile& file_;
  ImportOptions options_;
  const fb::SubGraph* graph_ = nullptr;
  uint32_t addOperand(hal::Operand o);

  hal::Model model_;
  std::unordered_map<int32_t, uint32_t> tensorOperand_;
  bool usesFilePool_ = false;  // some constant references the file as pool 0
};

// One operator being mapped: its index, name, inputs and outputs, with errors that name it.
class OpContext {
 public:
  OpContext(Importer& im, uint32_t index, std::string name, const fb::Operator& op)
      : im_(im), index_(index), name_(std::move(name)), op_(op) {}

  Importer& im() { return im_; }
  const fb::Operator& op() const { return op_; }
  size_t numInputs() const { return op_.inputs() ? op_.inputs()->size() : 0; }
  size_t numOutputs() const { return op_.outputs() ? op_.outputs()->size() : 0; }
  bool hasInput(size_t i) const { return i < numInputs() && op_.inputs()->Get(i) >= 0; }
  int32_t inputTensor(size_t i) const { return op_.inputs()->Get(i); }
  int32_t outputTensor(size_t i) const { return op_.outputs()->Get(i); }
  hal::Result<uint32_t> in(size_t i);
  hal::Result<uint32_t> out(size_t i);
  // Values of a constant integer input (INT32 or INT64 tensor), for axes, shapes, sizes.
  hal::Result<std::vector<int32_t>> constInts(size_t i);
  // The output tensor's shape as uint32 dimensions.
  std::vector<uint32_t> outputDims(size_t i) const;

  // An error naming this operator: "operator 3 (CONV_2D): why".
  template <typename... Args>
  hal::Error fail(const Args&... args) const {
    return hal::fail("operator ", index_, " (", name_, "): ", args...);
  }
  hal::Status checkCounts(size_t minIn, size_t maxIn, size_t outs) const;

 private:
  Importer& im_;
  uint32_t index_;
  std::string name_;
  const fb::Operator& op_;
};

// One mapping per builtin operator code; nullptr = refused (no NNAPI equivalent here).
using BuiltinMapper = hal::Status (*)(OpContext&);
BuiltinMapper builtinMapper(int32_t code);

}  // namespace nncosim::tflite
