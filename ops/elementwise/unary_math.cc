// Unary math on one tensor: ABS, EXP, LOG, NEG, SIN, SQRT, RSQRT, FLOOR. Float16 is
// computed in float and rounded on store; quantized RSQRT dequantizes, computes in float
// and requantizes (round half away from zero, saturate), as NNAPI does.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

using hal::OperationType;

Status validateWithTypes(const OperationContext& ctx, std::initializer_list<OperandType> types) {
  NNC_TRY(checkInputCount(ctx, {1}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkSupportedType(ctx, 0, types));
  NNC_TRY(checkOutputType(ctx, 0, ctx.inputType(0)));
  return Status::Ok();
}

Status validateFloatOnly(const OperationContext& ctx) {
  return validateWithTypes(ctx, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16});
}

Status validateSigned(const OperationContext& ctx) {  // ABS, NEG
  return validateWithTypes(
      ctx, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32});
}

Status validateRsqrt(const OperationContext& ctx) {
  return validateWithTypes(
      ctx, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
            OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
}

Status validateFloor(const OperationContext& ctx) {
  NNC_TRY(validateFloatOnly(ctx));
  return checkInputRankAtMost(ctx, 0, 4);
}

Status prepare(OperationContext& ctx) {
  Shape out = ctx.outputShape(0);
  out.dimensions = ctx.inputShape(0).dimensions;
  return ctx.setOutputShape(0, out);
}

Status prepareFloor(OperationContext& ctx) {
  NNC_TRY(checkInputRankAtMost(ctx, 0, 4));
  return prepare(ctx);
}

template <typename T, typename F>
void mapFloat(OperationContext& ctx, F fn) {
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) out[i] = fromFloat<T>(fn(toFloat(in[i])));
}

template <typename F>
Status executeFloat(OperationContext& ctx, F fn) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      mapFloat<float>(ctx, fn);
      return Status::Ok();
    case OperandType::TENSOR_FLOAT16:
      mapFloat<hal::Half>(ctx, fn);
      return Status::Ok();
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
}

template <typename F>
void mapInt32(OperationContext& ctx, F fn) {
  const int32_t* in = ctx.input<int32_t>(0);
  int32_t* out = ctx.output<int32_t>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) out[i] = fn(in[i]);
}

// -INT32_MIN wraps to INT32_MIN, as two's complement hardware does.
int32_t wrapNeg(int32_t v) { return static_cast<int32_t>(0u - static_cast<uint32_t>(v)); }

Status executeAbs(OperationContext& ctx) {
  if (ctx.inputType(0) == OperandType::TENSOR_INT32) {
    mapInt32(ctx, [](int32_t v) { return v < 0 ? wrapNeg(v) : v; });
    return Status::Ok();
  }
  return executeFloat(ctx, [](float v) { return std::fabs(v); });
}

Status executeNeg(OperationContext& ctx) {
  if (ctx.inputType(0) == OperandType::TENSOR_INT32) {
    mapInt32(ctx, wrapNeg);
    return Status::Ok();
  }
  return executeFloat(ctx, [](float v) { return -v; });
}

Status executeExp(OperationContext& ctx) {
  return executeFloat(ctx, [](float v) { return std::exp(v); });
}
Status executeLog(OperationContext& ctx) {
  return executeFloat(ctx, [](float v) { return std::log(v); });
}
Status executeSin(OperationContext& ctx) {
  return executeFloat(ctx, [](float v) { return std::sin(v); });
}
Status executeSqrt(OperationContext& ctx) {
  return executeFloat(ctx, [](float v) { return std::sqrt(v); });
}
Status executeFloor(OperationContext& ctx) {
  return executeFloat(ctx, [](float v) { return std::floor(v); });
}

float rsqrt(float v) { return 1.0f / std::sqrt(v); }

template <typename T>
void quantRsqrt(OperationContext& ctx) {
  const Shape& si = ctx.inputShape(0);
  const Shape& so = ctx.outputShape(0);
  const float lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = si.elements();
  for (uint64_t i = 0; i < n; ++i) {
    const float real = static_cast<float>(static_cast<int32_t>(in[i]) - si.zeroPoint) * si.scale;
    const float q = static_cast<float>(so.zeroPoint) + std::round(rsqrt(real) / so.scale);
    // std::min/std::max argument order as NNAPI: NaN and +inf saturate to the maximum.
    out[i] = static_cast<T>(std::max<float>(lo, std::min<float>(hi, q)));
  }
}

Status executeRsqrt(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      quantRsqrt<uint8_t>(ctx);
      return Status::Ok();
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      quantRsqrt<int8_t>(ctx);
      return Status::Ok();
    default:
      return executeFloat(ctx, rsqrt);
  }
}

}  // namespace

void registerUnaryMath(OperationTable& t) {
  t.add(OperationDef{OperationType::ABS, &validateSigned, &prepare, &executeAbs});
  t.add(OperationDef{OperationType::NEG, &validateSigned, &prepare, &executeNeg});
  t.add(OperationDef{OperationType::EXP, &validateFloatOnly, &prepare, &executeExp});
  t.add(OperationDef{OperationType::LOG, &validateFloatOnly, &prepare, &executeLog});
  t.add(OperationDef{OperationType::SIN, &validateFloatOnly, &prepare, &executeSin});
  t.add(OperationDef{OperationType::SQRT, &validateFloatOnly, &prepare, &executeSqrt});
  t.add(OperationDef{OperationType::RSQRT, &validateRsqrt, &prepare, &executeRsqrt});
  t.add(OperationDef{OperationType::FLOOR, &validateFloor, &prepareFloor, &executeFloor});
}

}  // namespace nncosim::ops::elementwise
