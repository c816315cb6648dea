// HARD_SWISH: x * relu6(x + 3) / 6. Quantized: TFLite's int16 fixed-point scheme (input
// on a 2^7 finer "hires" scale, a "reluish" factor in [0, 1] and one output multiplier,
// both downscaled to 16-bit).
#include <algorithm>
#include <limits>

#include "ops/elementwise/activation.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {
namespace {

// ---- int16 fixed-point primitives, with the int16 wrap-around of the reference ----

int16_t srdhm16(int16_t a, int16_t b) {  // saturating rounding doubling high multiply
  if (a == b && a == std::numeric_limits<int16_t>::min())
    return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

int16_t sdhm16(int16_t a, int16_t b) {  // the same, truncating instead of rounding
  if (a == b && a == std::numeric_limits<int16_t>::min())
    return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((int32_t{a} * int32_t{b}) / (1 << 15));
}

int16_t roundingDivideByPOT16(int16_t x, int exponent) {
  exponent = std::min(exponent, 31);
  const int16_t mask = static_cast<int16_t>((int64_t{1} << exponent) - 1);
  const int16_t remainder = static_cast<int16_t>(x & mask);
  const int16_t threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

int16_t saturatingLeftShift16(int16_t v, int amount) {
  const int64_t r = static_cast<int64_t>(v) * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(r, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}

int16_t downscaleMultiplier(int32_t m) {  // Q31 -> Q15, rounding, saturating at the top
  constexpr int32_t kRound = 1 << 15;
  if (m >= std::numeric_limits<int32_t>::max() - kRound) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((m + kRound) >> 16);
}

template <typename T>
void floatKernel(OperationContext& ctx) {
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) {
    const float x = toFloat(in[i]);
    out[i] = fromFloat<T>(x * std::min(6.0f, std::max(0.0f, x + 3.0f)) / 6.0f);
  }
}

template <typename T>
Status quantKernel(OperationContext& ctx) {
  const Shape& si = ctx.inputShape(0);
  const Shape& so = ctx.outputShape(0);
  // float arithmetic, as the reference computes these scales.
  const float hiresInputScale = (1.0f / 128.0f) * si.scale;
  const float reluishScale = 3.0f / 32768.0f;
  const float outputMultiplier = hiresInputScale / so.scale;
  const float reluishMultiplier = hiresInputScale / reluishScale;
  const quant::QuantizedMultiplier om = quant::quantizeMultiplier(outputMultiplier);
  const quant::QuantizedMultiplier rm = quant::quantizeMultiplier(reluishMultiplier);
  if (om.shift > 0)
    return hal::fail("output 0: scale ", so.scale, " is too small for input scale ", si.scale,
                     " (output multiplier ", outputMultiplier, " must be below 1)");
  const int16_t outMult = downscaleMultiplier(om.multiplier);
  const int16_t reluMult = downscaleMultiplier(rm.multiplier);

  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = si.elements();
  for (uint64_t i = 0; i < n; ++i) {
    const int16_t inputValue = static_cast<int16_t>(static_cast<int32_t>(in[i]) - si.zeroPoint);
    const int16_t hires = static_cast<int16_t>(inputValue * (1 << 7));
    const int16_t preshiftOutput = srdhm16(hires, outMult);
    // Rescale x from [-3, 3] to [-1, 1] (saturating), then to [0, 1].
    int16_t reluish = hires;
    if (rm.shift > 0) reluish = saturatingLeftShift16(reluish, rm.shift - 1);
    reluish = srdhm16(reluish, reluMult);
    if (rm.shift > 0) reluish = saturatingLeftShift16(reluish, 1);
    if (rm.shift < 0) reluish = roundingDivideByPOT16(reluish, -rm.shift);
    reluish = static_cast<int16_t>((reluish + (1 << 15)) >> 1);
    const int16_t product = sdhm16(reluish, preshiftOutput);
    int16_t value = roundingDivideByPOT16(product, -om.shift);
    value = static_cast<int16_t>(value + so.zeroPoint);
    out[i] = static_cast<T>(saturateTo<T>(value));
  }
  return Status::Ok();
}

Status validate(const OperationContext& ctx) {
  return validateActivation(ctx, std::numeric_limits<uint32_t>::max());
}

Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      floatKernel<float>(ctx);
      return Status::Ok();
    case OperandType::TENSOR_FLOAT16:
      floatKernel<hal::Half>(ctx);
      return Status::Ok();
    case OperandType::TENSOR_QUANT8_ASYMM:
      return quantKernel<uint8_t>(ctx);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return quantKernel<int8_t>(ctx);
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
}

}  // namespace

void registerHardSwish(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::HARD_SWISH, &validate, &prepareSameShape, &execute});
}

}  // namespace nncosim::ops::elementwise
