// POW: base ** exponent elementwise with broadcasting, computed in float.
#include <cmath>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {2}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkSupportedType(ctx, 0, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  NNC_TRY(checkInputType(ctx, 1, ctx.inputType(0)));
  NNC_TRY(checkOutputType(ctx, 0, ctx.inputType(0)));
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  auto dims = broadcastDims(ctx.inputShape(0), ctx.inputShape(1));
  if (!dims.ok()) return Error{dims.error()};
  Shape out = ctx.outputShape(0);
  out.dimensions = *dims;
  return ctx.setOutputShape(0, out);
}

template <typename T>
void kernel(OperationContext& ctx) {
  const T* base = ctx.input<T>(0);
  const T* exponent = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(ctx.outputShape(0).dimensions, ctx.inputShape(0), ctx.inputShape(1),
                   [&](uint64_t o, uint64_t ia, uint64_t ib) {
                     out[o] = fromFloat<T>(std::pow(toFloat(base[ia]), toFloat(exponent[ib])));
                   });
}

Status execute(OperationContext& ctx) {
  if (ctx.inputType(0) == OperandType::TENSOR_FLOAT16)
    kernel<hal::Half>(ctx);
  else
    kernel<float>(ctx);
  return Status::Ok();
}

}  // namespace

void registerPow(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::POW, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
