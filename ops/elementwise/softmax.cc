// SOFTMAX: exp(beta * (x - max)) / sum along an axis (default: the last). Quantized: the
// output scale is fixed at 1/256 (zero point 0, or -128 when signed) and the kernel is
// TFLite's integer softmax (differences in Q5.26, exps summed in Q12.19, a fixed-point
// reciprocal of the sum).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/elementwise/common.h"
#include "ops/elementwise/fixed_point_math.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {
namespace {

constexpr size_t kInput = 0, kBeta = 1, kAxis = 2;

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {2, 3}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkSupportedType(
      ctx, kInput,
      {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_QUANT8_ASYMM,
       OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  const bool half = ctx.inputType(kInput) == OperandType::TENSOR_FLOAT16;
  NNC_TRY(checkInputType(ctx, kBeta, half ? OperandType::FLOAT16 : OperandType::FLOAT32));
  if (ctx.numInputs() == 3) NNC_TRY(checkInputType(ctx, kAxis, OperandType::INT32));
  NNC_TRY(checkOutputType(ctx, 0, ctx.inputType(kInput)));
  return checkInputRankAtMost(ctx, kInput, 4);
}

// The axis of the operation, resolved (the last dimension when omitted).
Result<uint32_t> axisOf(const OperationContext& ctx) {
  const uint32_t rank = ctx.inputShape(kInput).rank();
  const int32_t axis = ctx.numInputs() == 3 ? ctx.scalar<int32_t>(kAxis) : -1;
  return resolveAxis(axis, rank, kAxis);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(checkInputRankAtMost(ctx, kInput, 4));
  if (ctx.inputShape(kInput).rank() == 0) return hal::fail("input 0: rank must be at least 1");
  const float beta = floatScalar(ctx, kBeta);
  if (!(beta > 0.0f)) return hal::fail("input ", kBeta, ": beta ", beta, " must be > 0");
  NNC_TRY(axisOf(ctx));
  Shape out = ctx.outputShape(0);
  out.dimensions = ctx.inputShape(kInput).dimensions;
  return ctx.setOutputShape(0, out);
}

struct Slicing {
  uint64_t outer = 1, axisSize = 1, inner = 1;
};

Slicing sliceAt(const Shape& s, uint32_t axis) {
  Slicing r;
  for (uint32_t d = 0; d < axis; ++d) r.outer *= s.dim(d);
  r.axisSize = s.dim(axis);
  for (uint32_t d = axis + 1; d < s.rank(); ++d) r.inner *= s.dim(d);
  return r;
}

template <typename T>
void floatKernel(OperationContext& ctx, uint32_t axis) {
  const float beta = floatScalar(ctx, kBeta);
  const Slicing sl = sliceAt(ctx.inputShape(kInput), axis);
  const T* in = ctx.input<T>(kInput);
  T* out = ctx.output<T>(0);
  std::vector<float> e(sl.axisSize);
  for (uint64_t o = 0; o < sl.outer; ++o) {
    for (uint64_t i = 0; i < sl.inner; ++i) {
      const uint64_t base = o * sl.axisSize * sl.inner + i;
      float maxValue = -std::numeric_limits<float>::max();
      for (uint64_t k = 0; k < sl.axisSize; ++k)
        maxValue = std::max(maxValue, toFloat(in[base + k * sl.inner]));
      float sum = 0.0f;
      for (uint64_t k = 0; k < sl.axisSize; ++k) {
        e[k] = std::exp((toFloat(in[base + k * sl.inner]) - maxValue) * beta);
        sum += e[k];
      }
      for (uint64_t k = 0; k < sl.axisSize; ++k)
        out[base + k * sl.inner] = fromFloat<T>(e[k] / sum);
    }
  }
}

template <typename T>
Status quantKernel(OperationContext& ctx, uint32_t axis) {
  constexpr bool kSigned = std::is_same_v<T, int8_t>;
  const Shape& si = ctx.inputShape(kInput);
  const Shape& so = ctx.outputShape(0);
  if (so.scale != 1.0f / 256 || so.zeroPoint != (kSigned ? -128 : 0))
    return hal::fail("output 0: SOFTMAX ", hal::toString(so.type), " output must have scale ",
                     1.0f / 256, " and zero point ", kSigned ? -128 : 0, ", found scale ", so.scale,
                     " and zero point ", so.zeroPoint);
  constexpr int kScaledDiffIntegerBits = 5;
  constexpr int kAccumulationIntegerBits = 12;
  const float beta = ctx.scalar<float>(kBeta);
  const double real = std::min(1.0 * beta * si.scale * (1 << (31 - kScaledDiffIntegerBits)),
                               static_cast<double>((int64_t{1} << 31) - 1));
  auto m = quant::quantizeMultiplierGreaterThanOne(real);
  if (!m.ok()) return hal::fail("input 0 scale ", si.scale, " * beta ", beta, ": ", m.error());
  const int32_t diffMin = -fxp::inputRadius(kScaledDiffIntegerBits, m->shift);

  const Slicing sl = sliceAt(si, axis);
  const T* in = ctx.input<T>(kInput);
  T* out = ctx.output<T>(0);
  for (uint64_t o = 0; o < sl.outer; ++o) {
    for (uint64_t i = 0; i < sl.inner; ++i) {
      const uint64_t base = o * sl.axisSize * sl.inner + i;
      int32_t maxValue = std::numeric_limits<T>::min();
      for (uint64_t k = 0; k < sl.axisSize; ++k)
        maxValue = std::max<int32_t>(maxValue, in[base + k * sl.inner]);
      // exp of each scaled difference, Q0; differences below diffMin count as zero.
      auto expOf = [&](int32_t diff) {
        const int32_t scaled =
            quant::multiplyByQuantizedMultiplierGreaterThanOne(diff, m->multiplier, m->shift);
        return fxp::expOnNegativeValues<kScaledDiffIntegerBits>(scaled);
      };
      int32_t sumOfExps = 0;  // Q12.19
      for (uint64_t k = 0; k < sl.axisSize; ++k) {
        const int32_t diff = int32_t{in[base + k * sl.inner]} - maxValue;
        if (diff >= diffMin)
          sumOfExps = fxp::add(sumOfExps, fxp::rescale<0, kAccumulationIntegerBits>(expOf(diff)));
      }
      const uint32_t fixedSum = static_cast<uint32_t>(sumOfExps);
      const int headroomPlusOne = fxp::countLeadingZeros(fixedSum);
      const int numBitsOverUnit = kAccumulationIntegerBits - headroomPlusOne;
      const int32_t shiftedSumMinusOne =
          static_cast<int32_t>((fixedSum << headroomPlusOne) - (uint32_t{1} << 31));
      const int32_t shiftedScale = fxp::oneOverOnePlusX(shiftedSumMinusOne);
      for (uint64_t k = 0; k < sl.axisSize; ++k) {
        const int32_t diff = int32_t{in[base + k * sl.inner]} - maxValue;
        int32_t q = std::numeric_limits<T>::min();
        if (diff >= diffMin) {
          q = quant::roundingDivideByPOT(fxp::mul(shiftedScale, expOf(diff)),
                                         numBitsOverUnit + 31 - 8);
          if constexpr (kSigned) q -= 128;
          q = saturateTo<T>(q);
        }
        out[base + k * sl.inner] = static_cast<T>(q);
      }
    }
  }
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  if (ctx.inputShape(kInput).elements() == 0) return Status::Ok();
  NNC_ASSIGN_OR_RETURN(auto axis, axisOf(ctx));
  switch (ctx.inputType(kInput)) {
    case OperandType::TENSOR_FLOAT32:
      floatKernel<float>(ctx, axis);
      return Status::Ok();
    case OperandType::TENSOR_FLOAT16:
      floatKernel<hal::Half>(ctx, axis);
      return Status::Ok();
    case OperandType::TENSOR_QUANT8_ASYMM:
      return quantKernel<uint8_t>(ctx, axis);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return quantKernel<int8_t>(ctx, axis);
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(kInput)));
  }
}

}  // namespace

void registerSoftmax(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SOFTMAX, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
