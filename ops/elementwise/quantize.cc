// QUANTIZE: float -> QUANT8_ASYMM(_SIGNED) as zeroPoint + round(x / scale) (ties away from
// zero), saturated to the type's range; computed in float as NNAPI does.
// In the 16x8 mode (an nncosim extension for imported TFLite models, docs/quantization.md
// section 10) also TFLite's integer requantization between TENSOR_QUANT16_SYMM and
// quantized TENSOR_INT32: MBQM(x - zp_in, S_in / S_out) + zp_out, saturated.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise/common.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {
namespace {

bool isRequantType(OperandType t) {
  return t == OperandType::TENSOR_QUANT16_SYMM || t == OperandType::TENSOR_INT32;
}

// The 16x8 mode's requantization: int16 <-> quantized int32.
bool isRequantize(const OperationContext& ctx) {
  return ctx.quant16x8() && isRequantType(ctx.inputType(0)) &&
         isRequantType(ctx.outputShape(0).type) && ctx.inputType(0) != ctx.outputShape(0).type;
}

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {1}));
  NNC_TRY(checkOutputCount(ctx, 1));
  if (isRequantize(ctx)) {
    if (!(ctx.inputShape(0).scale > 0) || !(ctx.outputShape(0).scale > 0))
      return hal::fail("requantization needs positive input and output scales, found ",
                       ctx.inputShape(0).scale, " and ", ctx.outputShape(0).scale);
    return Status::Ok();
  }
  NNC_TRY(checkSupportedType(ctx, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType out = ctx.outputShape(0).type;
  if (!isQuant8(out))
    return hal::fail("output 0: expected TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED, found ",
                     hal::toString(out));
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  Shape out = ctx.outputShape(0);
  out.dimensions = ctx.inputShape(0).dimensions;
  return ctx.setOutputShape(0, out);
}

template <typename From, typename To>
void kernel(OperationContext& ctx) {
  const Shape& so = ctx.outputShape(0);
  const float lo = std::numeric_limits<To>::min(), hi = std::numeric_limits<To>::max();
  const From* in = ctx.input<From>(0);
  To* out = ctx.output<To>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) {
    const float q = static_cast<float>(so.zeroPoint) + std::round(toFloat(in[i]) / so.scale);
    out[i] = static_cast<To>(std::max<float>(lo, std::min<float>(hi, q)));
  }
}

template <typename From>
void dispatch(OperationContext& ctx) {
  if (ctx.outputShape(0).type == OperandType::TENSOR_QUANT8_ASYMM)
    kernel<From, uint8_t>(ctx);
  else
    kernel<From, int8_t>(ctx);
}

template <typename From, typename To>
void requantize(OperationContext& ctx) {
  const Shape& si = ctx.inputShape(0);
  const Shape& so = ctx.outputShape(0);
  // As TFLite's QUANTIZE of integers: the ratio in double, one Q31 multiplier.
  const quant::QuantizedMultiplier m =
      quant::quantizeMultiplier(static_cast<double>(si.scale) / static_cast<double>(so.scale));
  const From* in = ctx.input<From>(0);
  To* out = ctx.output<To>(0);
  const uint64_t n = si.elements();
  for (uint64_t i = 0; i < n; ++i) {
    const int32_t x = static_cast<int32_t>(in[i]) - si.zeroPoint;
    const int64_t r =
        int64_t{quant::multiplyByQuantizedMultiplier(x, m.multiplier, m.shift)} + so.zeroPoint;
    out[i] = static_cast<To>(
        std::clamp<int64_t>(r, std::numeric_limits<To>::min(), std::numeric_limits<To>::max()));
  }
}

Status execute(OperationContext& ctx) {
  if (isRequantize(ctx)) {
    if (ctx.inputType(0) == OperandType::TENSOR_QUANT16_SYMM)
      requantize<int16_t, int32_t>(ctx);
    else
      requantize<int32_t, int16_t>(ctx);
    return Status::Ok();
  }
  if (ctx.inputType(0) == OperandType::TENSOR_FLOAT16)
    dispatch<hal::Half>(ctx);
  else
    dispatch<float>(ctx);
  return Status::Ok();
}

}  // namespace

void registerQuantize(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::QUANTIZE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
