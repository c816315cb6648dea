// MUL: elementwise product with broadcasting and a fused activation. Quantized: the
// product of the zero-point-corrected inputs, requantized by in1*in2/out (below one).
#include "ops/elementwise/arithmetic.h"
#include "ops/quant/fixed_point.h"

namespace nncosim::ops::elementwise {
namespace {

template <typename T>
Status quantMul(OperationContext& ctx) {
  const Shape& s1 = ctx.inputShape(0);
  const Shape& s2 = ctx.inputShape(1);
  const Shape& so = ctx.outputShape(0);
  // float product widened to double, as NNAPI computes it.
  const double productScale = s1.scale * s2.scale;
  NNC_ASSIGN_OR_RETURN(auto m, multiplierSmallerThanOne(productScale / so.scale, "output"));
  constexpr bool kSigned = std::is_same_v<T, int8_t>;
  const quant::ActivationRange range = quant::activationRange(
      ctx.scalar<int32_t>(2), so.scale, so.zeroPoint, kSigned ? -128 : 0, kSigned ? 127 : 255);
  const T* a = ctx.input<T>(0);
  const T* b = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(so.dimensions, s1, s2, [&](uint64_t o, uint64_t ia, uint64_t ib) {
    const int32_t x = static_cast<int32_t>(a[ia]) - s1.zeroPoint;
    const int32_t y = static_cast<int32_t>(b[ib]) - s2.zeroPoint;
    const int32_t r = quant::multiplyByQuantizedMultiplier(x * y, m.multiplier, m.shift);
    out[o] = static_cast<T>(quant::clamp(r + so.zeroPoint, range.min, range.max));
  });
  return Status::Ok();
}

Status validate(const OperationContext& ctx) { return validateArithmetic(ArithOp::kMul, ctx); }

Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_QUANT8_ASYMM:
      return quantMul<uint8_t>(ctx);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return quantMul<int8_t>(ctx);
    default:
      return executeArithmeticNonQuant(ArithOp::kMul, ctx);
  }
}

}  // namespace

void registerMul(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::MUL, &validate, &prepareBroadcastBinary, &execute});
}

}  // namespace nncosim::ops::elementwise
