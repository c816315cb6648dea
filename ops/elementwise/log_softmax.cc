// LOG_SOFTMAX: beta * (x - max) - log(sum(exp(beta * (x - max)))) along an axis.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

constexpr size_t kInput = 0, kBeta = 1, kAxis = 2;

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {3}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(
      checkSupportedType(ctx, kInput, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const bool half = ctx.inputType(kInput) == OperandType::TENSOR_FLOAT16;
  NNC_TRY(checkInputType(ctx, kBeta, half ? OperandType::FLOAT16 : OperandType::FLOAT32));
  NNC_TRY(checkInputType(ctx, kAxis, OperandType::INT32));
  return checkOutputType(ctx, 0, ctx.inputType(kInput));
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(kInput);
  if (in.rank() == 0) return hal::fail("input 0: rank must be at least 1");
  NNC_TRY(resolveAxis(ctx.scalar<int32_t>(kAxis), in.rank(), kAxis));
  Shape out = ctx.outputShape(0);
  out.dimensions = in.dimensions;
  return ctx.setOutputShape(0, out);
}

template <typename T>
void kernel(OperationContext& ctx, uint32_t axis) {
  const Shape& s = ctx.inputShape(kInput);
  const float beta = floatScalar(ctx, kBeta);
  uint64_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < axis; ++d) outer *= s.dim(d);
  for (uint32_t d = axis + 1; d < s.rank(); ++d) inner *= s.dim(d);
  const uint64_t axisSize = s.dim(axis);
  const T* in = ctx.input<T>(kInput);
  T* out = ctx.output<T>(0);
  for (uint64_t o = 0; o < outer; ++o) {
    for (uint64_t i = 0; i < inner; ++i) {
      const uint64_t base = o * axisSize * inner + i;
      float maxValue = toFloat(in[base]);
      for (uint64_t k = 1; k < axisSize; ++k)
        maxValue = std::max(maxValue, toFloat(in[base + k * inner]));
      float sum = 0.0f;
      for (uint64_t k = 0; k < axisSize; ++k)
        sum += static_cast<float>(
            std::exp(static_cast<double>((toFloat(in[base + k * inner]) - maxValue) * beta)));
      const float logSum = static_cast<float>(std::log(static_cast<double>(sum)));
      for (uint64_t k = 0; k < axisSize; ++k)
        out[base + k * inner] =
            fromFloat<T>((toFloat(in[base + k * inner]) - maxValue) * beta - logSum);
    }
  }
}

Status execute(OperationContext& ctx) {
  if (ctx.inputShape(kInput).elements() == 0) return Status::Ok();
  NNC_ASSIGN_OR_RETURN(
      auto axis, resolveAxis(ctx.scalar<int32_t>(kAxis), ctx.inputShape(kInput).rank(), kAxis));
  if (ctx.inputType(kInput) == OperandType::TENSOR_FLOAT16)
    kernel<hal::Half>(ctx, axis);
  else
    kernel<float>(ctx, axis);
  return Status::Ok();
}

}  // namespace

void registerLogSoftmax(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::LOG_SOFTMAX, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
