// ADD: elementwise sum with broadcasting and a fused activation. Quantized inputs use
// TFLite's scheme (both inputs rescaled to 2 * max(scale) with 20 bits of headroom); SUB
// shares that kernel with the second multiplier negated. In the 16x8 mode also int16
// (an nncosim extension): TFLite's general int16 ADD/SUB, the same kernel with 15 bits of
// headroom (an int16 difference times 2^15 still fits int32) and the int16 range.
#include "ops/elementwise/arithmetic.h"
#include "ops/elementwise/quant_arith.h"

namespace nncosim::ops::elementwise {
namespace {

template <typename T>
Status quantAddSub(OperationContext& ctx, bool negateSecond) {
  const Shape& s1 = ctx.inputShape(0);
  const Shape& s2 = ctx.inputShape(1);
  const Shape& so = ctx.outputShape(0);
  NNC_ASSIGN_OR_RETURN(auto p,
                       quantArithParams(false, negateSecond, s1, s2, so, ctx.scalar<int32_t>(2)));
  const T* a = ctx.input<T>(0);
  const T* b = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(so.dimensions, s1, s2, [&](uint64_t o, uint64_t ia, uint64_t ib) {
    out[o] = static_cast<T>(quantArithElement(p, a[ia], b[ib]));
  });
  return Status::Ok();
}

Status validate(const OperationContext& ctx) { return validateArithmetic(ArithOp::kAdd, ctx); }

Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      return quantAddSub<uint8_t>(ctx, false);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return quantAddSub<int8_t>(ctx, false);
    case OperandType::TENSOR_QUANT16_SYMM:
      return quantAddSub<int16_t>(ctx, false);
    default:
      return executeArithmeticNonQuant(ArithOp::kAdd, ctx);
  }
}

}  // namespace

Status executeQuantAddSub(OperationContext& ctx, bool negateSecond) {
  if (ctx.inputType(0) == OperandType::TENSOR_QUANT8_ASYMM)
    return quantAddSub<uint8_t>(ctx, negateSecond);
  if (ctx.inputType(0) == OperandType::TENSOR_QUANT16_SYMM)
    return quantAddSub<int16_t>(ctx, negateSecond);
  return quantAddSub<int8_t>(ctx, negateSecond);
}

void registerAdd(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::ADD, &validate, &prepareBroadcastBinary, &execute});
}

}  // namespace nncosim::ops::elementwise
