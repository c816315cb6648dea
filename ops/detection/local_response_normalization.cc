// LOCAL_RESPONSE_NORMALIZATION: x * (bias + alpha * sum(x^2 over a window))^-beta, the
// window spanning `radius` elements either side along an axis (default: the last).
#include <algorithm>
#include <cmath>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kInput = 0, kRadius = 1, kBias = 2, kAlpha = 3, kBeta = 4, kAxis = 5;

Status validate(const OperationContext& ctx) {
  if (ctx.numInputs() != 5 && ctx.numInputs() != 6)
    return hal::fail("expected 5 or 6 inputs, found ", ctx.numInputs());
  if (ctx.numOutputs() != 1) return hal::fail("expected 1 output, found ", ctx.numOutputs());
  const OperandType t = ctx.inputType(kInput);
  OperandType scalar;
  if (t == OperandType::TENSOR_FLOAT32) {
    scalar = OperandType::FLOAT32;
  } else if (t == OperandType::TENSOR_FLOAT16) {
    scalar = OperandType::FLOAT16;
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  NNC_TRY(detection::checkInputTypes(ctx, {t, OperandType::INT32, scalar, scalar, scalar}));
  if (ctx.numInputs() == 6 && ctx.inputType(kAxis) != OperandType::INT32)
    return hal::fail("input 5: expected INT32, found ", hal::toString(ctx.inputType(kAxis)));
  NNC_TRY(detection::checkOutputTypes(ctx, {t}));
  if (ctx.inputShape(kInput).rank() > 4)
    return hal::fail("input 0: rank ", ctx.inputShape(kInput).rank(), " is above 4");
  if (ctx.hasInputValue(kRadius) && ctx.scalar<int32_t>(kRadius) < 0)
    return hal::fail("input 1: radius ", ctx.scalar<int32_t>(kRadius), " must be >= 0");
  return Status::Ok();
}

Result<int32_t> resolveAxis(const OperationContext& ctx) {
  const int32_t rank = static_cast<int32_t>(ctx.inputShape(kInput).rank());
  int32_t axis = ctx.numInputs() == 6 ? ctx.scalar<int32_t>(kAxis) : -1;
  if (axis < -rank || axis >= rank)
    return hal::fail("input 5: axis ", axis, " is out of range for rank ", rank);
  return axis < 0 ? axis + rank : axis;
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(kInput);
  if (in.rank() > 4) return hal::fail("input 0: rank ", in.rank(), " is above 4");
  NNC_TRY(resolveAxis(ctx));
  const int32_t radius = ctx.scalar<int32_t>(kRadius);
  if (radius < 0) return hal::fail("input 1: radius ", radius, " must be >= 0");
  Shape s = ctx.outputShape(0);
  s.dimensions = in.dimensions;
  return ctx.setOutputShape(0, s);
}

Status execute(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(kInput);
  auto axisR = resolveAxis(ctx);
  NNC_TRY(axisR);
  const int32_t axis = *axisR;
  if (in.elements() == 0) return Status::Ok();
  const float bias = detection::floatScalar(ctx, kBias);
  const float alpha = detection::floatScalar(ctx, kAlpha);
  const float beta = detection::floatScalar(ctx, kBeta);
  const int32_t axisSize = static_cast<int32_t>(in.dim(axis));
  const int32_t radius = std::min(ctx.scalar<int32_t>(kRadius), axisSize);
  size_t outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= in.dim(d);
  for (uint32_t d = axis + 1; d < in.rank(); ++d) inner *= in.dim(d);

  const std::vector<float> x = detection::inputAsFloat(ctx, kInput);
  std::vector<float> y(x.size());
  for (size_t o = 0; o < outer; ++o) {
    const size_t base = o * axisSize * inner;
    for (size_t i = 0; i < inner; ++i) {
      for (int32_t c = 0; c < axisSize; ++c) {
        const int32_t begin = std::max(0, c - radius);
        const int32_t end = std::min(axisSize, c + radius + 1);
        float sum = 0.0f;
        for (int32_t d = begin; d < end; ++d) {
          const float v = x[base + d * inner + i];
          sum += v * v;
        }
        const float multiplier = std::pow(bias + alpha * sum, -beta);
        y[base + c * inner + i] = x[base + c * inner + i] * multiplier;
      }
    }
  }
  detection::storeOutput(ctx, 0, y);
  return Status::Ok();
}

}  // namespace

void registerLocalResponseNormalization(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::LOCAL_RESPONSE_NORMALIZATION, &validate, &prepare,
                     &execute});
}

}  // namespace nncosim::ops
