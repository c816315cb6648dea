#include "ops/recurrent/recurrent_util.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "hal/half.h"

namespace nncosim::ops::recurrent {
namespace {

std::string listOf(const std::vector<size_t>& v) {
  std::ostringstream os;
  for (size_t k = 0; k < v.size(); ++k)
    os << (k == 0 ? "" : k + 1 == v.size() ? " or " : ", ") << v[k];
  return os.str();
}

}  // namespace

Status checkCounts(const OperationContext& ctx, const std::vector<size_t>& inputCounts,
                   const std::vector<size_t>& outputCounts) {
  if (std::find(inputCounts.begin(), inputCounts.end(), ctx.numInputs()) == inputCounts.end())
    return hal::fail("expected ", listOf(inputCounts), " inputs, got ", ctx.numInputs());
  if (std::find(outputCounts.begin(), outputCounts.end(), ctx.numOutputs()) == outputCounts.end())
    return hal::fail("expected ", listOf(outputCounts), " outputs, got ", ctx.numOutputs());
  return Status::Ok();
}

Status checkInputType(const OperationContext& ctx, size_t i, OperandType expected) {
  if (ctx.inputType(i) != expected)
    return hal::fail("input ", i, ": expected type ", hal::toString(expected), ", got ",
                     hal::toString(ctx.inputType(i)));
  return Status::Ok();
}

Status checkInputTypes(const OperationContext& ctx, const std::vector<OperandType>& expected) {
  for (size_t i = 0; i < expected.size() && i < ctx.numInputs(); ++i)
    NNC_TRY(checkInputType(ctx, i, expected[i]));
  return Status::Ok();
}

Status checkOutputTypes(const OperationContext& ctx, const std::vector<OperandType>& expected) {
  for (size_t i = 0; i < expected.size() && i < ctx.numOutputs(); ++i)
    if (ctx.outputShape(i).type != expected[i])
      return hal::fail("output ", i, ": expected type ", hal::toString(expected[i]), ", got ",
                       hal::toString(ctx.outputShape(i).type));
  return Status::Ok();
}

Result<OperandType> floatInputType(const OperationContext& ctx) {
  const OperandType t = ctx.inputType(0);
  if (t != OperandType::TENSOR_FLOAT32 && t != OperandType::TENSOR_FLOAT16)
    return hal::fail("input 0: expected TENSOR_FLOAT32 or TENSOR_FLOAT16, got ", hal::toString(t));
  return t;
}

OperandType scalarTypeOf(OperandType tensorType) {
  return tensorType == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
}

bool present(const OperationContext& ctx, int i) {
  return i >= 0 && static_cast<size_t>(i) < ctx.numInputs() && !ctx.isOmitted(i);
}

Status setOutputDims(OperationContext& ctx, size_t i, const std::vector<uint32_t>& dims) {
  Shape s = ctx.outputShape(i);
  s.dimensions = dims;
  return ctx.setOutputShape(i, s);
}

Status checkPresent(const OperationContext& ctx, size_t i, const char* name) {
  if (ctx.isOmitted(i)) return hal::fail("input ", i, " (", name, ") is required but omitted");
  return Status::Ok();
}

Status checkRank(const OperationContext& ctx, size_t i, const char* name, uint32_t rank) {
  NNC_TRY(checkPresent(ctx, i, name));
  const Shape& s = ctx.inputShape(i);
  if (s.rank() != rank)
    return hal::fail("input ", i, " (", name, "): expected rank ", rank, ", got shape ",
                     toString(s.dimensions));
  return Status::Ok();
}

Status checkShape(const OperationContext& ctx, size_t i, const char* name,
                  const std::vector<uint32_t>& expected) {
  NNC_TRY(checkPresent(ctx, i, name));
  const Shape& s = ctx.inputShape(i);
  if (s.dimensions != expected)
    return hal::fail("input ", i, " (", name, "): expected shape ", toString(expected), ", got ",
                     toString(s.dimensions));
  return Status::Ok();
}

FloatTensor::FloatTensor(const OperationContext& ctx, int i) {
  if (!present(ctx, i)) return;
  const Shape& s = ctx.inputShape(i);
  if (s.type == OperandType::TENSOR_FLOAT16) {
    const size_t n = static_cast<size_t>(s.elements());
    converted_.resize(n);
    const uint8_t* bytes = ctx.inputBytes(i);
    for (size_t k = 0; k < n; ++k) {
      uint16_t bits;
      std::memcpy(&bits, bytes + 2 * k, 2);
      converted_[k] = hal::halfBitsToFloat(bits);
    }
    ptr_ = converted_.data();
  } else {
    ptr_ = ctx.input<float>(i);
  }
  // A present tensor with no elements still needs a non-null pointer.
  if (ptr_ == nullptr) {
    converted_.assign(1, 0.0f);
    ptr_ = converted_.data();
  }
}

float floatScalar(const OperationContext& ctx, size_t i) {
  if (ctx.inputType(i) == OperandType::FLOAT16)
    return hal::halfBitsToFloat(ctx.scalar<uint16_t>(i));
  return ctx.scalar<float>(i);
}

bool boolScalar(const OperationContext& ctx, size_t i) { return ctx.scalar<uint8_t>(i) != 0; }

void storeFloats(OperationContext& ctx, size_t i, const float* src, size_t n) {
  uint8_t* dst = ctx.outputBytes(i);
  if (ctx.outputShape(i).type == OperandType::TENSOR_FLOAT16) {
    for (size_t k = 0; k < n; ++k) {
      const uint16_t bits = hal::floatToHalfBits(src[k]);
      std::memcpy(dst + 2 * k, &bits, 2);
    }
  } else if (n > 0) {
    std::memcpy(dst, src, n * sizeof(float));
  }
}

void roundToHalf(float* data, size_t n) {
  for (size_t k = 0; k < n; ++k) data[k] = hal::halfBitsToFloat(hal::floatToHalfBits(data[k]));
}

Status checkActivation(int32_t activation, bool allowTanhSigmoid) {
  switch (activation) {
    case 0:
    case 1:
    case 2:
    case 3:
      return Status::Ok();
    case 4:
    case 6:
      if (allowTanhSigmoid) return Status::Ok();
      break;
    default:
      break;
  }
  return hal::fail("unsupported activation ", activation);
}

float applyActivation(int32_t activation, float x) {
  switch (activation) {
    case 1:
      return std::max(0.0f, x);
    case 2:
      return std::min(1.0f, std::max(-1.0f, x));
    case 3:
      return std::min(6.0f, std::max(0.0f, x));
    case 4:
      return std::tanh(x);
    case 6:
      return sigmoid(x);
    default:
      return x;
  }
}

}  // namespace nncosim::ops::recurrent
