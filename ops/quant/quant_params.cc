#include "ops/quant/quant_params.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nncosim::ops::quant {

QuantizedMultiplier quantizeMultiplier(double real) {
  if (real == 0.0) return {0, 0};
  int exponent = 0;
  const double q = std::frexp(real, &exponent);  // real = q * 2^exponent, q in [0.5, 1)
  auto fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {  // q rounded up to 1.0
    fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) return {0, 0};  // too small to represent: the product is 0
  return {static_cast<int32_t>(fixed), exponent};
}

hal::Result<QuantizedMultiplier> quantizeMultiplierSmallerThanOne(double real) {
  if (!(real >= 0.0 && real < 1.0)) return hal::fail("multiplier ", real, " is not in [0, 1)");
  QuantizedMultiplier m = quantizeMultiplier(real);
  if (m.shift > 0) return hal::fail("multiplier ", real, " rounds to 1");
  return m;
}

hal::Result<QuantizedMultiplier> quantizeMultiplierGreaterThanOne(double real) {
  if (!(real > 1.0)) return hal::fail("multiplier ", real, " is not above 1");
  QuantizedMultiplier m = quantizeMultiplier(real);
  if (m.shift < 0) return hal::fail("multiplier ", real, " has a negative shift");
  return m;
}

hal::Result<double> convolutionMultiplier(float inputScale, float filterScale, float biasScale,
                                          float outputScale) {
  // float * float, rounded to float, as NNAPI does before widening.
  const float productF = inputScale * filterScale;
  const double product = productF;
  const double b = biasScale;
  if (!(std::abs(product - b) <= 1e-6 * std::min(product, b)))
    return hal::fail("bias scale ", biasScale, " != input scale * filter scale ", product);
  return productMultiplier(inputScale, filterScale, outputScale);
}

hal::Result<double> productMultiplier(float inputScale, float filterScale, float outputScale) {
  const float productF = inputScale * filterScale;
  const double product = productF;
  if (!(product >= 0)) return hal::fail("input scale * filter scale ", product, " must be >= 0");
  if (!(outputScale > 0)) return hal::fail("output scale ", outputScale, " must be > 0");
  return product / static_cast<double>(outputScale);
}

ActivationRange activationRange(int32_t activation, float scale, int32_t zeroPoint, int32_t qmin,
                                int32_t qmax) {
  // Clamped before the conversion, so that a tiny scale (int16 outputs of the 16x8 mode)
  // cannot overflow int32; the bound is intersected with [qmin, qmax] anyway.
  auto q = [&](float f) {
    const float r = std::min(std::max(std::round(f / scale), -1e12f), 1e12f);
    const int64_t v = int64_t{zeroPoint} + static_cast<int64_t>(r);
    return static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(v, INT32_MIN), INT32_MAX));
  };
  switch (activation) {
    case kActRelu:
      return {std::max(qmin, q(0.0f)), qmax};
    case kActRelu6:
      return {std::max(qmin, q(0.0f)), std::min(qmax, q(6.0f))};
    case kActRelu1:
      return {std::max(qmin, q(-1.0f)), std::min(qmax, q(1.0f))};
    default:
      return {qmin, qmax};
  }
}

void activationRangeFloat(int32_t activation, float* min, float* max) {
  switch (activation) {
    case kActRelu:
      *min = 0.0f;
      *max = std::numeric_limits<float>::max();
      break;
    case kActRelu6:
      *min = 0.0f;
      *max = 6.0f;
      break;
    case kActRelu1:
      *min = -1.0f;
      *max = 1.0f;
      break;
    default:
      *min = std::numeric_limits<float>::lowest();
      *max = std::numeric_limits<float>::max();
  }
}

ActivationRange typeRange(int bits, bool isSigned) {
  if (isSigned) return {-(1 << (bits - 1)), (1 << (bits - 1)) - 1};
  return {0, static_cast<int32_t>((int64_t{1} << bits) - 1)};
}

}  // namespace nncosim::ops::quant
