// TANH. Quantized: the output scale is fixed at 1/128 (zero point 128, or 0 when signed);
// the input is rescaled to Q4.27 and run through the fixed-point tanh, as TFLite's
// integer kernel does.
#include <cmath>

#include "ops/elementwise/activation.h"
#include "ops/elementwise/fixed_point_math.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {
namespace {

constexpr int kInputIntegerBits = 4;

template <typename T>
void floatKernel(OperationContext& ctx) {
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) out[i] = fromFloat<T>(std::tanh(toFloat(in[i])));
}

template <typename T>
Status quantKernel(OperationContext& ctx) {
  constexpr bool kSigned = std::is_same_v<T, int8_t>;
  const int32_t outZeroPoint = kSigned ? 0 : 128;
  NNC_TRY(checkFixedOutputQuant(ctx, "TANH", 1.0f / 128, outZeroPoint));
  const Shape& si = ctx.inputShape(0);
  const double real = si.scale * static_cast<double>(1 << (31 - kInputIntegerBits));
  auto m = quant::quantizeMultiplierGreaterThanOne(real);
  if (!m.ok()) return hal::fail("input 0: scale ", si.scale, ": ", m.error());
  const int32_t radius = fxp::inputRadius(kInputIntegerBits, m->shift);
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = si.elements();
  for (uint64_t i = 0; i < n; ++i) {
    const int32_t centered = static_cast<int32_t>(in[i]) - si.zeroPoint;
    int32_t q;
    if (centered <= -radius) {
      q = std::numeric_limits<T>::min();
    } else if (centered >= radius) {
      q = std::numeric_limits<T>::max();
    } else {
      const int32_t rescaled =
          quant::multiplyByQuantizedMultiplierGreaterThanOne(centered, m->multiplier, m->shift);
      // Q0.31 -> 7 fractional bits; +1.0 (128 above the zero point) saturates.
      q = quant::roundingDivideByPOT(fxp::tanh<kInputIntegerBits>(rescaled), 24) + outZeroPoint;
      q = saturateTo<T>(q);
    }
    out[i] = static_cast<T>(q);
  }
  return Status::Ok();
}

Status validate(const OperationContext& ctx) { return validateActivation(ctx, 4); }

Status prepare(OperationContext& ctx) {
  NNC_TRY(checkInputRankAtMost(ctx, 0, 4));
  return prepareSameShape(ctx);
}

Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32: floatKernel<float>(ctx); return Status::Ok();
    case OperandType::TENSOR_FLOAT16: floatKernel<hal::Half>(ctx); return Status::Ok();
    case OperandType::TENSOR_QUANT8_ASYMM: return quantKernel<uint8_t>(ctx);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return quantKernel<int8_t>(ctx);
    default: return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
}

}  // namespace

void registerTanh(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::TANH, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
