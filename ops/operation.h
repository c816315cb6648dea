// OperationContext and OperationDef: the shape of every operation in ops/.
//
// Each operation supplies three functions, registered once in the operation table
// (registry.h):
//   validate: its NNAPI operand signature (counts, types, versions, constant-only
//             parameters). Runs before execution; only constant inputs have data.
//   prepare:  the output shapes, from the input shapes and values (all known here).
//   execute:  the kernel; may assume validate and prepare succeeded.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hal/model.h"
#include "hal/result.h"
#include "hal/tensor_value.h"
#include "ops/shape.h"

namespace nncosim::ops {

using hal::Error;
using hal::OperandType;
using hal::Result;
using hal::Status;

// One operand while a subgraph runs.
struct RuntimeOperand {
  Shape shape;
  const uint8_t* data = nullptr;  // constants/inputs (not owned) or storage.data()
  std::vector<uint8_t> storage;   // values this run produced
  bool omitted = false;           // NO_VALUE, or an omitted optional input
  bool constant = false;          // value known before execution
  bool hasValue() const { return data != nullptr || shape.bytes() == 0; }
};

// Runs a referenced subgraph for control-flow operations (IF, WHILE).
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual Status runSubgraph(uint32_t index, const std::vector<hal::TensorValue>& inputs,
                             std::vector<hal::TensorValue>& outputs) = 0;
};

class OperationContext {
 public:
  OperationContext(const hal::Model& model, const hal::Operation& op,
                   std::vector<RuntimeOperand>& operands, bool executing,
                   SubgraphRunner* runner = nullptr)
      : model_(model), op_(op), operands_(operands), executing_(executing), runner_(runner) {}

  hal::OperationType type() const { return op_.type; }
  size_t numInputs() const { return op_.inputs.size(); }
  size_t numOutputs() const { return op_.outputs.size(); }
  bool executing() const { return executing_; }
  // model.relaxComputationFloat32toFloat16
  bool relaxed() const { return model_.relaxComputationFloat32toFloat16; }
  // model.quant16x8: the 16x8 quantization mode is selected for this model
  bool quant16x8() const { return model_.quant16x8; }
  const hal::Model& model() const { return model_; }
  SubgraphRunner* runner() const { return runner_; }

  const Shape& inputShape(size_t i) const { return in(i).shape; }
  OperandType inputType(size_t i) const { return in(i).shape.type; }
  bool isOmitted(size_t i) const {
    notePresenceAsked(i);
    return i >= numInputs() || in(i).omitted;
  }
  // True when the value is readable now (always during execution, constants before).
  bool hasInputValue(size_t i) const {
    notePresenceAsked(i);
    const RuntimeOperand& r = in(i);
    if (r.omitted) return false;
    if (r.data != nullptr) return true;
    return (r.constant || executing_) && r.shape.bytes() == 0;  // an empty tensor
  }
  const uint8_t* inputBytes(size_t i) const { return in(i).data; }
  template <typename T>
  const T* input(size_t i) const {
    return reinterpret_cast<const T*>(in(i).data);
  }
  // Element 0 of input i (scalars); reads unaligned-safe.
  template <typename T>
  T scalar(size_t i) const {
    T v{};
    std::memcpy(&v, in(i).data, sizeof(T));
    return v;
  }

  // The output as declared in the model (some dimensions may be 0 = unknown).
  const Shape& outputShape(size_t i) const { return out(i).shape; }
  // Fixes output i's shape; dimensions must agree with every declared known
  // dimension. Allocates the output's storage when executing.
  Status setOutputShape(size_t i, const Shape& s);
  template <typename T>
  T* output(size_t i) {
    return reinterpret_cast<T*>(out(i).storage.data());
  }
  uint8_t* outputBytes(size_t i) { return out(i).storage.data(); }

  // Operand index in the subgraph of input i (for messages).
  uint32_t inputOperandIndex(size_t i) const { return op_.inputs.at(i); }

  // Whether validate/prepare asked if input i is present (isOmitted, hasInputValue). An
  // operation that never asks treats the input as required, so the executor refuses an
  // omitted value there instead of handing the kernel a null pointer.
  bool presenceAsked(size_t i) const { return i < presenceAsked_.size() && presenceAsked_[i]; }

 private:
  const RuntimeOperand& in(size_t i) const { return operands_[op_.inputs.at(i)]; }
  void notePresenceAsked(size_t i) const {
    if (i >= numInputs()) return;
    if (presenceAsked_.size() < numInputs()) presenceAsked_.resize(numInputs(), false);
    presenceAsked_[i] = true;
  }
  RuntimeOperand& out(size_t i) { return operands_[op_.outputs.at(i)]; }
  const RuntimeOperand& out(size_t i) const { return operands_[op_.outputs.at(i)]; }

  const hal::Model& model_;
  const hal::Operation& op_;
  std::vector<RuntimeOperand>& operands_;
  bool executing_;
  SubgraphRunner* runner_;
  mutable std::vector<bool> presenceAsked_;
};

// Which engine can run a given use of an operation (answered by the table's
// `placement` hook when present; the driver asks this).
enum class Placement { kReferenceOnly, kMacArray, kDensifyUnit };

struct MacQuery;

struct OperationDef {
  hal::OperationType type;
  Status (*validate)(const OperationContext&) = nullptr;
  Status (*prepare)(OperationContext&) = nullptr;
  Status (*execute)(OperationContext&) = nullptr;
  // Multiply-accumulates of one use, from the declared shapes (ops/mac_count.h); only
  // the operations whose work is MACs register one, every other counts 0.
  uint64_t (*macs)(const MacQuery&) = nullptr;
};

}  // namespace nncosim::ops
