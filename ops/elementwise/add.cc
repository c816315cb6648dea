// ADD: elementwise sum with broadcasting and a fused activation. Quantized inputs use
// TFLite's scheme (both inputs rescaled to 2 * max(scale) with 20 bits of headroom); SUB
// shares that kernel with the second multiplier negated. In the 16x8 mode also int16
// (an nncosim extension): TFLite's general int16 ADD/SUB, the same kernel with 15 bits of
// headroom (an int16 difference times 2^15 still fits int32) and the int16 range.
#include <limits>

#include "ops/elementwise/arithmetic.h"
#include "ops/quant/fixed_point.h"

namespace nncosim::ops::elementwise {
namespace {

template <typename T>
Status quantAddSub(OperationContext& ctx, bool negateSecond) {
  const Shape& s1 = ctx.inputShape(0);
  const Shape& s2 = ctx.inputShape(1);
  const Shape& so = ctx.outputShape(0);
  constexpr int kLeftShift = std::is_same_v<T, int16_t> ? 15 : 20;
  // Mixed float/double arithmetic in the same order as NNAPI, so the multipliers match.
  const double twiceMaxInputScale = 2 * std::max(s1.scale, s2.scale);
  const double real1 = s1.scale / twiceMaxInputScale;
  const double real2 = s2.scale / twiceMaxInputScale;
  const double realOut = twiceMaxInputScale / ((1 << kLeftShift) * so.scale);
  NNC_ASSIGN_OR_RETURN(auto m1, multiplierSmallerThanOne(real1, "input 0"));
  NNC_ASSIGN_OR_RETURN(auto m2, multiplierSmallerThanOne(real2, "input 1"));
  NNC_ASSIGN_OR_RETURN(auto mo, multiplierSmallerThanOne(realOut, "output"));
  const int32_t mult2 = negateSecond ? -m2.multiplier : m2.multiplier;
  const quant::ActivationRange range =
      quant::activationRange(ctx.scalar<int32_t>(2), so.scale, so.zeroPoint,
                             std::numeric_limits<T>::min(), std::numeric_limits<T>::max());

  const T* a = ctx.input<T>(0);
  const T* b = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(so.dimensions, s1, s2, [&](uint64_t o, uint64_t ia, uint64_t ib) {
    const int32_t x = (static_cast<int32_t>(a[ia]) - s1.zeroPoint) * (1 << kLeftShift);
    const int32_t y = (static_cast<int32_t>(b[ib]) - s2.zeroPoint) * (1 << kLeftShift);
    const int32_t sx = quant::multiplyByQuantizedMultiplier(x, m1.multiplier, m1.shift);
    const int32_t sy = quant::multiplyByQuantizedMultiplier(y, mult2, m2.shift);
    const int32_t sum = quant::multiplyByQuantizedMultiplier(sx + sy, mo.multiplier, mo.shift);
    out[o] = static_cast<T>(quant::clamp(sum + so.zeroPoint, range.min, range.max));
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
