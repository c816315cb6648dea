// RELU, RELU1, RELU6: clamp to [0, inf), [-1, 1], [0, 6]. Quantized tensors clamp in the
// input's quantized domain (bounds quantized with the input scale and zero point).
#include <algorithm>
#include <limits>

#include "ops/elementwise/activation.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {
namespace {

template <typename T>
void floatKernel(OperationContext& ctx, float lo, float hi) {
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  // max(lo, x) first, as NNAPI: a NaN input gives the lower bound.
  for (uint64_t i = 0; i < n; ++i)
    out[i] = fromFloat<T>(std::min(std::max(lo, toFloat(in[i])), hi));
}

template <typename T>
void quantKernel(OperationContext& ctx, int32_t activation) {
  const Shape& si = ctx.inputShape(0);
  const quant::ActivationRange r =
      quant::activationRange(activation, si.scale, si.zeroPoint, std::numeric_limits<T>::min(),
                             std::numeric_limits<T>::max());
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = si.elements();
  for (uint64_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(quant::clamp(static_cast<int32_t>(in[i]), r.min, r.max));
}

template <int32_t kActivation>
Status execute(OperationContext& ctx) {
  float lo, hi;
  quant::activationRangeFloat(kActivation, &lo, &hi);
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      floatKernel<float>(ctx, lo, hi);
      break;
    case OperandType::TENSOR_FLOAT16:
      floatKernel<hal::Half>(ctx, lo, hi);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      quantKernel<uint8_t>(ctx, kActivation);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      quantKernel<int8_t>(ctx, kActivation);
      break;
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
  return Status::Ok();
}

Status validate(const OperationContext& ctx) { return validateActivation(ctx, 4); }

Status prepare(OperationContext& ctx) {
  NNC_TRY(checkInputRankAtMost(ctx, 0, 4));
  return prepareSameShape(ctx);
}

}  // namespace

void registerRelu(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::RELU, &validate, &prepare, &execute<quant::kActRelu>});
  t.add(OperationDef{hal::OperationType::RELU1, &validate, &prepare, &execute<quant::kActRelu1>});
  t.add(OperationDef{hal::OperationType::RELU6, &validate, &prepare, &execute<quant::kActRelu6>});
}

}  // namespace nncosim::ops::elementwise
