// ELU: max(0, x) + min(0, alpha * (exp(x) - 1)), alpha a FLOAT32/FLOAT16 scalar.
#include <algorithm>
#include <cmath>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {2}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkSupportedType(ctx, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const bool half = ctx.inputType(0) == OperandType::TENSOR_FLOAT16;
  NNC_TRY(checkInputType(ctx, 1, half ? OperandType::FLOAT16 : OperandType::FLOAT32));
  return checkOutputType(ctx, 0, ctx.inputType(0));
}

Status prepare(OperationContext& ctx) {
  Shape out = ctx.outputShape(0);
  out.dimensions = ctx.inputShape(0).dimensions;
  return ctx.setOutputShape(0, out);
}

template <typename T>
void kernel(OperationContext& ctx) {
  const float alpha = floatScalar(ctx, 1);
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) {
    const float x = toFloat(in[i]);
    out[i] = fromFloat<T>(std::max(0.0f, x) + std::min(0.0f, alpha * (std::exp(x) - 1.0f)));
  }
}

Status execute(OperationContext& ctx) {
  if (ctx.inputType(0) == OperandType::TENSOR_FLOAT16)
    kernel<hal::Half>(ctx);
  else
    kernel<float>(ctx);
  return Status::Ok();
}

}  // namespace

void registerElu(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::ELU, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
