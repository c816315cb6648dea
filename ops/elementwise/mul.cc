// MUL: elementwise product with broadcasting and a fused activation. Quantized: the
// product of the zero-point-corrected inputs, requantized by in1*in2/out (below one).
#include "ops/elementwise/arithmetic.h"
#include "ops/elementwise/quant_arith.h"

namespace nncosim::ops::elementwise {
namespace {

template <typename T>
Status quantMul(OperationContext& ctx) {
  const Shape& s1 = ctx.inputShape(0);
  const Shape& s2 = ctx.inputShape(1);
  const Shape& so = ctx.outputShape(0);
  NNC_ASSIGN_OR_RETURN(auto p, quantArithParams(true, false, s1, s2, so, ctx.scalar<int32_t>(2)));
  const T* a = ctx.input<T>(0);
  const T* b = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(so.dimensions, s1, s2, [&](uint64_t o, uint64_t ia, uint64_t ib) {
    out[o] = static_cast<T>(quantArithElement(p, a[ia], b[ib]));
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
