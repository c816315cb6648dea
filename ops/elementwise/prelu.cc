// PRELU: x >= 0 ? x : alpha * x, alpha broadcast against the input. Quantized: TFLite's
// scheme with one multiplier for the positive side (in/out) and one for the negative
// side (in*alpha/out).
#include <type_traits>

#include "ops/elementwise/common.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  // TENSOR_QUANT16_SYMM: nncosim's 16x8 mode extension (docs/quantization.md section 10),
  // TFLite's int16 LEAKY_RELU as the importer maps it (alpha one code of scale alpha).
  if (ctx.numInputs() == 2 && ctx.inputType(0) == OperandType::TENSOR_QUANT16_SYMM) {
    if (!ctx.quant16x8())
      return hal::fail("input 0: TENSOR_QUANT16_SYMM PRELU needs the 16x8 mode");
    NNC_TRY(checkBinarySignature(ctx, {OperandType::TENSOR_QUANT16_SYMM}));
  } else {
    NNC_TRY(checkBinarySignature(
        ctx, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  }
  return checkOutputType(ctx, 0, ctx.inputType(0));
}

template <typename T>
void floatKernel(OperationContext& ctx) {
  const T* x = ctx.input<T>(0);
  const T* alpha = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(ctx.outputShape(0).dimensions, ctx.inputShape(0), ctx.inputShape(1),
                   [&](uint64_t o, uint64_t ix, uint64_t ia) {
                     const float v = toFloat(x[ix]);
                     out[o] = v >= 0.0f ? x[ix] : fromFloat<T>(v * toFloat(alpha[ia]));
                   });
}

template <typename T>
void quantKernel(OperationContext& ctx) {
  const Shape& sx = ctx.inputShape(0);
  const Shape& sa = ctx.inputShape(1);
  const Shape& so = ctx.outputShape(0);
  // The scale ratios are float divisions/products widened to double, as in NNAPI; the
  // 16x8 extension is TFLite's int16 LEAKY_RELU, whose negative-side ratio is computed in
  // float throughout (in_scale * alpha / out_scale), which can differ in the last bit.
  const double realPos = sx.scale / so.scale;
  const double productScale = sx.scale * sa.scale;
  const double realNeg = std::is_same_v<T, int16_t>
                             ? static_cast<double>(sx.scale * sa.scale / so.scale)
                             : productScale / so.scale;
  const quant::QuantizedMultiplier pos = quant::quantizeMultiplier(realPos);
  const quant::QuantizedMultiplier neg = quant::quantizeMultiplier(realNeg);
  const T* x = ctx.input<T>(0);
  const T* alpha = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(so.dimensions, sx, sa, [&](uint64_t o, uint64_t ix, uint64_t ia) {
    const int32_t in = static_cast<int32_t>(x[ix]) - sx.zeroPoint;
    int32_t r;
    if (in >= 0) {
      r = quant::multiplyByQuantizedMultiplier(in, pos.multiplier, pos.shift);
    } else {
      const int32_t a = static_cast<int32_t>(alpha[ia]) - sa.zeroPoint;
      r = quant::multiplyByQuantizedMultiplier(in * a, neg.multiplier, neg.shift);
    }
    out[o] = static_cast<T>(saturateTo<T>(r + so.zeroPoint));
  });
}

Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      floatKernel<float>(ctx);
      break;
    case OperandType::TENSOR_FLOAT16:
      floatKernel<hal::Half>(ctx);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      quantKernel<uint8_t>(ctx);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      quantKernel<int8_t>(ctx);
      break;
    case OperandType::TENSOR_QUANT16_SYMM:
      quantKernel<int16_t>(ctx);
      break;
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
  return Status::Ok();
}

}  // namespace

void registerPrelu(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::PRELU, &validate, &prepareBroadcast, &execute});
}

}  // namespace nncosim::ops::elementwise
