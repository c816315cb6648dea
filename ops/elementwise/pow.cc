// POW: base ** exponent elementwise with broadcasting, computed in float.
#include <cmath>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkBinarySignature(ctx, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  return checkOutputType(ctx, 0, ctx.inputType(0));
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
  t.add(OperationDef{hal::OperationType::POW, &validate, &prepareBroadcast, &execute});
}

}  // namespace nncosim::ops::elementwise
