// Shared signature of the one-input activations (RELU*, LOGISTIC, TANH, HARD_SWISH), and
// the kernels of the two smooth curves LOGISTIC and TANH.
#pragma once

#include <limits>
#include <type_traits>

#include "ops/elementwise/common.h"
#include "ops/elementwise/fixed_point_math.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {

// {t} -> {t} for t in FLOAT32, FLOAT16, QUANT8_ASYMM(_SIGNED); rank <= maxRank if known.
Status validateActivation(const OperationContext& ctx, uint32_t maxRank);
// Output 0 takes input 0's dimensions; its quantization stays as declared.
Status prepareSameShape(OperationContext& ctx);
// Checks that a quantized output has the fixed scale and zero point an operation defines.
Status checkFixedOutputQuant(const OperationContext& ctx, const char* op, float scale,
                             int32_t zeroPoint);

// ---- LOGISTIC and TANH: a curve in float, or in TFLite's fixed point ----
//
// Both differ only in the curve and in the fixed output quantization the operation
// defines, so one kernel serves both.

// Their signature and shape: rank at most 4, output shaped as the input.
Status validateCurve(const OperationContext& ctx);
Status prepareCurve(OperationContext& ctx);

// The fixed-point curves take their input in Q4.27.
inline constexpr int kCurveInputIntegerBits = 4;

// The quantized output a curve operation requires: scale 2^-fractionBits and a zero point
// per signedness.
struct CurveOutputQuant {
  const char* op;  // the operation's name, for errors
  int fractionBits;
  int32_t zeroPointUnsigned, zeroPointSigned;
};

// Float and half: out = real(in), computed in float.
template <typename T, typename Real>
void curveFloatKernel(OperationContext& ctx, Real real) {
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) out[i] = fromFloat<T>(real(toFloat(in[i])));
}

// Quantized: the input, centered on its zero point, is rescaled to Q4.27 and mapped by
// `fixedPoint` (Q4.27 -> Q0.31); the result is rounded to the output's fraction bits and
// offset by its zero point. Inputs beyond the rescale's radius take the extreme codes.
template <typename T, typename FixedPoint>
Status curveQuantKernel(OperationContext& ctx, const CurveOutputQuant& q, FixedPoint fixedPoint) {
  const int32_t outZeroPoint = std::is_same_v<T, int8_t> ? q.zeroPointSigned : q.zeroPointUnsigned;
  NNC_TRY(checkFixedOutputQuant(ctx, q.op, 1.0f / static_cast<float>(1 << q.fractionBits),
                                outZeroPoint));
  const Shape& si = ctx.inputShape(0);
  const double real = si.scale * static_cast<double>(1 << (31 - kCurveInputIntegerBits));
  auto m = quant::quantizeMultiplierGreaterThanOne(real);
  if (!m.ok()) return hal::fail("input 0: scale ", si.scale, ": ", m.error());
  const int32_t radius = fxp::inputRadius(kCurveInputIntegerBits, m->shift);
  const T* in = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  const uint64_t n = si.elements();
  for (uint64_t i = 0; i < n; ++i) {
    const int32_t centered = static_cast<int32_t>(in[i]) - si.zeroPoint;
    int32_t v;
    if (centered <= -radius) {
      v = std::numeric_limits<T>::min();
    } else if (centered >= radius) {
      v = std::numeric_limits<T>::max();
    } else {
      const int32_t rescaled =
          quant::multiplyByQuantizedMultiplierGreaterThanOne(centered, m->multiplier, m->shift);
      // Q0.31 -> fractionBits; +1.0 saturates to the top code.
      v = quant::roundingDivideByPOT(fixedPoint(rescaled), 31 - q.fractionBits) + outZeroPoint;
      v = saturateTo<T>(v);
    }
    out[i] = static_cast<T>(v);
  }
  return Status::Ok();
}

// The execute() of a curve operation, by input type.
template <typename Real, typename FixedPoint>
Status executeCurve(OperationContext& ctx, const CurveOutputQuant& q, Real real,
                    FixedPoint fixedPoint) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      curveFloatKernel<float>(ctx, real);
      return Status::Ok();
    case OperandType::TENSOR_FLOAT16:
      curveFloatKernel<hal::Half>(ctx, real);
      return Status::Ok();
    case OperandType::TENSOR_QUANT8_ASYMM:
      return curveQuantKernel<uint8_t>(ctx, q, fixedPoint);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return curveQuantKernel<int8_t>(ctx, q, fixedPoint);
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
}

}  // namespace nncosim::ops::elementwise
