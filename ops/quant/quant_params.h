// Quantization parameters derived from real scales: multipliers, shifts and
// activation clamps, computed once per operation (as TFLite kernels do) and shared
// with the compiler that programs the NPU's requant unit.
#pragma once

#include <cstdint>
#include <vector>

#include "hal/result.h"

namespace nncosim::ops::quant {

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31 in [2^30, 2^31), or 0 for a zero scale
  int shift = 0;           // power of two: > 0 left, < 0 right
};

// real = multiplier * 2^(shift - 31). Handles any finite real >= 0.
QuantizedMultiplier quantizeMultiplier(double real);
// For 0 <= real < 1 (NNAPI's QuantizeMultiplierSmallerThanOneExp); shift <= 0.
hal::Result<QuantizedMultiplier> quantizeMultiplierSmallerThanOne(double real);
// For real > 1; shift >= 0.
hal::Result<QuantizedMultiplier> quantizeMultiplierGreaterThanOne(double real);

// The real multiplier of a convolution or fully-connected layer: in*filter/out, after
// checking that the bias scale equals in*filter (NNAPI's rule, 1e-6 relative).
// As NNAPI's GetQuantizedConvolutionMultiplier computes it: the product in*filter is a
// float multiply (rounded to float), then widened to double and divided by the output
// scale in double. Computing the product in double gives a different multiplier for some
// scales, so the float rounding step is part of the contract.
hal::Result<double> convolutionMultiplier(float inputScale, float filterScale, float biasScale,
                                          float outputScale);
// The same without a bias (BATCH_MATMUL): double(float(in*filter)) / out.
hal::Result<double> productMultiplier(float inputScale, float filterScale, float outputScale);

// NNAPI FuseCode values.
enum FusedActivation : int32_t { kActNone = 0, kActRelu = 1, kActRelu1 = 2, kActRelu6 = 3 };

struct ActivationRange {
  int32_t min, max;
};
// Clamp bounds of a fused activation in the output's quantized domain, intersected with
// [qmin, qmax]. Real bounds are quantized as zeroPoint + round(bound / scale).
ActivationRange activationRange(int32_t activation, float scale, int32_t zeroPoint, int32_t qmin,
                                int32_t qmax);
// The same for float outputs.
void activationRangeFloat(int32_t activation, float* min, float* max);

// Integer range of a quantized element type: uint8 [0,255], int8 [-128,127], ...
ActivationRange typeRange(int bits, bool isSigned);

}  // namespace nncosim::ops::quant
