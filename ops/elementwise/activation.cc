#include "ops/elementwise/activation.h"

namespace nncosim::ops::elementwise {

Status validateActivation(const OperationContext& ctx, uint32_t maxRank) {
  NNC_TRY(checkInputCount(ctx, {1}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkSupportedType(
      ctx, 0,
      {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_QUANT8_ASYMM,
       OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NNC_TRY(checkOutputType(ctx, 0, ctx.inputType(0)));
  return checkInputRankAtMost(ctx, 0, maxRank);
}

Status prepareSameShape(OperationContext& ctx) {
  Shape out = ctx.outputShape(0);
  out.dimensions = ctx.inputShape(0).dimensions;
  return ctx.setOutputShape(0, out);
}

Status checkFixedOutputQuant(const OperationContext& ctx, const char* op, float scale,
                             int32_t zeroPoint) {
  const Shape& o = ctx.outputShape(0);
  if (o.scale != scale || o.zeroPoint != zeroPoint)
    return hal::fail("output 0: ", op, " ", hal::toString(o.type), " output must have scale ",
                     scale, " and zero point ", zeroPoint, ", found scale ", o.scale,
                     " and zero point ", o.zeroPoint);
  return Status::Ok();
}

Status validateCurve(const OperationContext& ctx) { return validateActivation(ctx, 4); }

Status prepareCurve(OperationContext& ctx) {
  NNC_TRY(checkInputRankAtMost(ctx, 0, 4));
  return prepareSameShape(ctx);
}

}  // namespace nncosim::ops::elementwise
