#include "ops/detection/detection_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "hal/half.h"

namespace nncosim::ops::detection {

Status checkCounts(const OperationContext& ctx, size_t inputs, size_t outputs) {
  if (ctx.numInputs() != inputs)
    return hal::fail("expected ", inputs, " inputs, found ", ctx.numInputs());
  if (ctx.numOutputs() != outputs)
    return hal::fail("expected ", outputs, " outputs, found ", ctx.numOutputs());
  return Status::Ok();
}

Status checkInputTypes(const OperationContext& ctx, const std::vector<OperandType>& types) {
  size_t i = 0;
  for (OperandType t : types) {
    if (i >= ctx.numInputs()) return hal::fail("input ", i, " (", hal::toString(t), ") is missing");
    if (ctx.inputType(i) != t)
      return hal::fail("input ", i, ": expected ", hal::toString(t), ", found ",
                       hal::toString(ctx.inputType(i)));
    ++i;
  }
  return Status::Ok();
}

Status checkOutputTypes(const OperationContext& ctx, std::initializer_list<OperandType> types) {
  size_t i = 0;
  for (OperandType t : types) {
    if (i >= ctx.numOutputs())
      return hal::fail("output ", i, " (", hal::toString(t), ") is missing");
    if (ctx.outputShape(i).type != t)
      return hal::fail("output ", i, ": expected ", hal::toString(t), ", found ",
                       hal::toString(ctx.outputShape(i).type));
    ++i;
  }
  return Status::Ok();
}

Status checkInputRank(const OperationContext& ctx, size_t i, uint32_t rank) {
  const Shape& s = ctx.inputShape(i);
  if (s.dimensions.empty() && !ctx.executing()) return Status::Ok();  // unknown rank
  if (s.rank() != rank)
    return hal::fail("input ", i, ": expected rank ", rank, ", found shape ",
                     toString(s.dimensions));
  return Status::Ok();
}

Status checkHasValue(const OperationContext& ctx, size_t i) {
  if (!ctx.hasInputValue(i))
    return hal::fail("input ", i, " (", hal::toString(ctx.inputType(i)), ") has no value");
  return Status::Ok();
}

float floatScalar(const OperationContext& ctx, size_t i) {
  if (ctx.inputType(i) == OperandType::FLOAT16)
    return static_cast<float>(hal::Half::fromBits(ctx.scalar<uint16_t>(i)));
  return ctx.scalar<float>(i);
}

bool boolScalar(const OperationContext& ctx, size_t i) { return ctx.scalar<uint8_t>(i) != 0; }

namespace {

template <typename T>
void dequantize(const uint8_t* bytes, size_t n, float scale, int32_t zeroPoint, float* out) {
  const T* p = reinterpret_cast<const T*>(bytes);
  for (size_t k = 0; k < n; ++k) out[k] = (static_cast<float>(p[k]) - zeroPoint) * scale;
}

template <typename T>
void quantize(const std::vector<float>& v, float scale, int32_t zeroPoint, uint8_t* bytes) {
  T* p = reinterpret_cast<T*>(bytes);
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (size_t k = 0; k < v.size(); ++k)
    p[k] = static_cast<T>(quantizeValue(v[k], scale, zeroPoint, lo, hi));
}

}  // namespace

int32_t quantizeValue(float v, float scale, int32_t zeroPoint, int32_t lo, int32_t hi) {
  const float r = std::round(v / scale + zeroPoint);
  // Saturate in float first: out-of-range float -> int conversion is undefined.
  if (!(r >= static_cast<float>(lo))) return lo;  // also NaN
  if (r >= static_cast<float>(hi)) return hi;
  return static_cast<int32_t>(r);
}

std::vector<float> inputAsFloat(const OperationContext& ctx, size_t i) {
  const Shape& s = ctx.inputShape(i);
  const size_t n = static_cast<size_t>(s.elements());
  std::vector<float> out(n);
  const uint8_t* b = ctx.inputBytes(i);
  if (n == 0 || b == nullptr) return out;
  switch (s.type) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::FLOAT32:
      std::memcpy(out.data(), b, n * sizeof(float));
      break;
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16: {
      const uint16_t* p = reinterpret_cast<const uint16_t*>(b);
      for (size_t k = 0; k < n; ++k) out[k] = hal::halfBitsToFloat(p[k]);
      break;
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      dequantize<uint8_t>(b, n, s.scale, s.zeroPoint, out.data());
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
      dequantize<int8_t>(b, n, s.scale, s.zeroPoint, out.data());
      break;
    case OperandType::TENSOR_QUANT16_ASYMM:
      dequantize<uint16_t>(b, n, s.scale, s.zeroPoint, out.data());
      break;
    case OperandType::TENSOR_QUANT16_SYMM:
      dequantize<int16_t>(b, n, s.scale, s.zeroPoint, out.data());
      break;
    case OperandType::TENSOR_INT32:
    case OperandType::INT32: {
      const int32_t* p = reinterpret_cast<const int32_t*>(b);
      for (size_t k = 0; k < n; ++k) out[k] = static_cast<float>(p[k]);
      break;
    }
    default:
      break;
  }
  return out;
}

void storeOutput(OperationContext& ctx, size_t i, const std::vector<float>& values) {
  const Shape& s = ctx.outputShape(i);
  uint8_t* b = ctx.outputBytes(i);
  if (values.empty() || b == nullptr) return;
  switch (s.type) {
    case OperandType::TENSOR_FLOAT32:
      std::memcpy(b, values.data(), values.size() * sizeof(float));
      break;
    case OperandType::TENSOR_FLOAT16: {
      uint16_t* p = reinterpret_cast<uint16_t*>(b);
      for (size_t k = 0; k < values.size(); ++k) p[k] = hal::floatToHalfBits(values[k]);
      break;
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      quantize<uint8_t>(values, s.scale, s.zeroPoint, b);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
      quantize<int8_t>(values, s.scale, s.zeroPoint, b);
      break;
    case OperandType::TENSOR_QUANT16_ASYMM:
      quantize<uint16_t>(values, s.scale, s.zeroPoint, b);
      break;
    case OperandType::TENSOR_QUANT16_SYMM:
      quantize<int16_t>(values, s.scale, s.zeroPoint, b);
      break;
    case OperandType::TENSOR_INT32: {
      int32_t* p = reinterpret_cast<int32_t*>(b);
      for (size_t k = 0; k < values.size(); ++k) p[k] = static_cast<int32_t>(values[k]);
      break;
    }
    default:
      break;
  }
}

float iouAxisAligned(const float* a, const float* b) {
  const float areaA = (a[2] - a[0]) * (a[3] - a[1]);
  const float areaB = (b[2] - b[0]) * (b[3] - b[1]);
  const float x1 = std::max(a[0], b[0]);
  const float x2 = std::min(a[2], b[2]);
  const float y1 = std::max(a[1], b[1]);
  const float y2 = std::min(a[3], b[3]);
  const float w = std::max(x2 - x1, 0.0f);
  const float h = std::max(y2 - y1, 0.0f);
  const float inter = w * h;
  return inter / (areaA + areaB - inter);
}

}  // namespace nncosim::ops::detection
