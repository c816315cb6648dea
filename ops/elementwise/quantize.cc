// QUANTIZE: float -> QUANT8_ASYMM(_SIGNED) as zeroPoint + round(x / scale) (ties away from
// zero), saturated to the type's range; computed in float as NNAPI does.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {1}));
  NNC_TRY(checkOutputCount(ctx, 1));
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

Status execute(OperationContext& ctx) {
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
