// Helpers shared by the recurrent operations: operand signature checks, shape checks,
// float views of FLOAT32/FLOAT16 tensors, activations and sequence layouts.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/operation.h"

namespace nncosim::ops::recurrent {

// The operation has one of the allowed input and output counts.
Status checkCounts(const OperationContext& ctx, const std::vector<size_t>& inputCounts,
                   const std::vector<size_t>& outputCounts);
// Input i has type `expected`.
Status checkInputType(const OperationContext& ctx, size_t i, OperandType expected);
// Every input (then every output) has the listed type.
Status checkInputTypes(const OperationContext& ctx, const std::vector<OperandType>& expected);
Status checkOutputTypes(const OperationContext& ctx, const std::vector<OperandType>& expected);
// Input 0 is TENSOR_FLOAT32 or TENSOR_FLOAT16; returns it.
Result<OperandType> floatInputType(const OperationContext& ctx);
// The scalar type that goes with a float tensor type.
OperandType scalarTypeOf(OperandType tensorType);

// Input i is present (not omitted) and has the given dimensions.
Status checkShape(const OperationContext& ctx, size_t i, const char* name,
                  const std::vector<uint32_t>& expected);
// Input i is present (not omitted).
Status checkPresent(const OperationContext& ctx, size_t i, const char* name);
// Input i is present and has `rank` dimensions.
Status checkRank(const OperationContext& ctx, size_t i, const char* name, uint32_t rank);
bool present(const OperationContext& ctx, int i);
// Sets output i to the declared type and quantization with the given dimensions.
Status setOutputDims(OperationContext& ctx, size_t i, const std::vector<uint32_t>& dims);

// A float copy (or view) of a FLOAT32/FLOAT16 tensor input; data() is nullptr when the
// input is omitted.
class FloatTensor {
 public:
  FloatTensor() = default;
  FloatTensor(const OperationContext& ctx, int i);
  const float* data() const { return ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  std::vector<float> converted_;
  const float* ptr_ = nullptr;
};

// Scalar input i as float, from FLOAT32 or FLOAT16.
float floatScalar(const OperationContext& ctx, size_t i);
// BOOL scalar input i.
bool boolScalar(const OperationContext& ctx, size_t i);
// Writes n floats to output i, rounding to half for FLOAT16 outputs.
void storeFloats(OperationContext& ctx, size_t i, const float* src, size_t n);
// Rounds every element to the nearest half (what a FLOAT16 buffer would hold).
void roundToHalf(float* data, size_t n);

// NNAPI fused activations as the recurrent operations use them (TFLite numbering):
// 0 none, 1 relu, 2 relu1, 3 relu6, 4 tanh, 6 sigmoid.
Status checkActivation(int32_t activation, bool allowTanhSigmoid);
float applyActivation(int32_t activation, float x);
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Where row (t, b) of a [maxTime, batch] sequence lives, in rows of `rowSize`.
struct SequenceLayout {
  bool timeMajor = true;
  uint32_t maxTime = 0;
  uint32_t batch = 0;
  size_t row(uint32_t t, uint32_t b) const {
    return timeMajor ? size_t{t} * batch + b : size_t{b} * maxTime + t;
  }
};

}  // namespace nncosim::ops::recurrent
