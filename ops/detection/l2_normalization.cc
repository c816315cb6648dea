// L2_NORMALIZATION: x / max(sqrt(sum(x^2)), 1e-6) along an axis.
// The quantized variants use TFLite's integer path (NNAPI wraps it): an inverse square
// root in gemmlowp fixed point (Newton-Raphson), output scale 1/128.
#include <algorithm>
#include <cmath>
#include <limits>

#include "hal/half.h"
#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/quant/fixed_point.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace detection {

// 1/sqrt(input) as a Q31 multiplier and a shift (TFLite's GetInvSqrtQuantizedMultiplierExp
// with reverse_shift = -1: the returned shift is <= 0, a right shift).
void invSqrtQuantizedMultiplier(int32_t input, int32_t* multiplier, int* shift) {
  using quant::saturatingRoundingDoublingHighMul;
  if (input <= 1) {  // 0 acts as 1, avoiding a division by zero
    *multiplier = std::numeric_limits<int32_t>::max();
    *shift = 0;
    return;
  }
  int outShift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++outShift;
  }
  const unsigned maxLeftShiftBits =
      static_cast<unsigned>(__builtin_clz(static_cast<uint32_t>(input))) - 1;
  const unsigned leftShiftBitPairs = maxLeftShiftBits / 2 - 1;
  outShift -= static_cast<int>(leftShiftBitPairs);
  input <<= 2 * leftShiftBitPairs;
  // Fixed point with 3 integer bits: raw = value * 2^28.
  // Multiplying two such numbers (high mul) gives 6 integer bits; rescaling back to 3
  // integer bits is a saturating left shift by 3.
  auto rescale3 = [](int32_t raw, int fromIntegerBits) {
    const int exponent = fromIntegerBits - 3;
    const int32_t threshold = (int32_t{1} << (31 - exponent)) - 1;
    if (raw > threshold) return std::numeric_limits<int32_t>::max();
    if (raw < -threshold) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(static_cast<uint32_t>(raw) << exponent);
  };
  const int32_t fixedInput = input >> 1;
  const int32_t halfInput = quant::roundingDivideByPOT(fixedInput, 1);
  const int32_t halfThree = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;  // 1.0
  for (int i = 0; i < 5; ++i) {
    const int32_t x2 = saturatingRoundingDoublingHighMul(x, x);   // 6 integer bits
    const int32_t x3 = saturatingRoundingDoublingHighMul(x2, x);  // 9 integer bits
    const int32_t x3r = rescale3(x3, 9);
    const int32_t a = saturatingRoundingDoublingHighMul(halfThree, x);    // 6 bits
    const int32_t b = saturatingRoundingDoublingHighMul(halfInput, x3r);  // 6 bits
    const int32_t diff = static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
    x = rescale3(diff, 6);
  }
  const int32_t halfSqrt2 = 1518500250;  // sqrt(2)/2 in Q31
  x = saturatingRoundingDoublingHighMul(x, halfSqrt2);
  if (outShift < 0) {
    x = static_cast<int32_t>(static_cast<uint32_t>(x) << -outShift);
    outShift = 0;
  }
  *multiplier = x;
  *shift = -outShift;
}

}  // namespace detection

namespace {

using detection::checkCounts;

struct Geometry {
  uint32_t outer = 1, axisSize = 1, inner = 1;
};

Result<int32_t> resolveAxis(const OperationContext& ctx) {
  const int32_t rank = static_cast<int32_t>(ctx.inputShape(0).rank());
  int32_t axis = ctx.numInputs() == 2 ? ctx.scalar<int32_t>(1) : -1;
  if (axis < -rank || axis >= rank)
    return hal::fail("input 1: axis ", axis, " is out of range for rank ", rank);
  if (axis < 0) axis += rank;
  return axis;
}

Geometry geometry(const Shape& s, int32_t axis) {
  Geometry g;
  for (int32_t d = 0; d < axis; ++d) g.outer *= s.dim(d);
  g.axisSize = s.dim(axis);
  for (uint32_t d = axis + 1; d < s.rank(); ++d) g.inner *= s.dim(d);
  return g;
}

Status validate(const OperationContext& ctx) {
  if (ctx.numInputs() != 1 && ctx.numInputs() != 2)
    return hal::fail("expected 1 or 2 inputs, found ", ctx.numInputs());
  if (ctx.numOutputs() != 1) return hal::fail("expected 1 output, found ", ctx.numOutputs());
  const OperandType t = ctx.inputType(0);
  if (t != OperandType::TENSOR_FLOAT32 && t != OperandType::TENSOR_FLOAT16 &&
      t != OperandType::TENSOR_QUANT8_ASYMM && t != OperandType::TENSOR_QUANT8_ASYMM_SIGNED)
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  if (ctx.numInputs() == 2) NNC_TRY(detection::checkInputTypes(ctx, {t, OperandType::INT32}));
  NNC_TRY(detection::checkOutputTypes(ctx, {t}));
  if (ctx.inputShape(0).rank() > 4)
    return hal::fail("input 0: rank ", ctx.inputShape(0).rank(), " is above 4");
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() > 4) return hal::fail("input 0: rank ", in.rank(), " is above 4");
  NNC_TRY(resolveAxis(ctx));
  const Shape& out = ctx.outputShape(0);
  if (in.type == OperandType::TENSOR_QUANT8_ASYMM ||
      in.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    // The kernel produces values in 1/128 steps around the fixed zero point.
    const int32_t zp = in.type == OperandType::TENSOR_QUANT8_ASYMM ? 128 : 0;
    if (out.scale != 1.0f / 128.0f || out.zeroPoint != zp)
      return hal::fail("output 0: quantization must be scale 1/128, zeroPoint ", zp,
                       "; found scale ", out.scale, ", zeroPoint ", out.zeroPoint);
  }
  Shape s = out;
  s.dimensions = in.dimensions;
  return ctx.setOutputShape(0, s);
}

void l2normFloat(const float* in, float* out, const Geometry& g) {
  constexpr float kEpsilon = 1e-6f;
  for (uint32_t o = 0; o < g.outer; ++o) {
    const size_t base = static_cast<size_t>(o) * g.axisSize * g.inner;
    for (uint32_t i = 0; i < g.inner; ++i) {
      float sum = 0.0f;
      for (uint32_t a = 0; a < g.axisSize; ++a) {
        const float v = in[base + static_cast<size_t>(a) * g.inner + i];
        sum += v * v;
      }
      const float norm = std::max(std::sqrt(sum), kEpsilon);
      for (uint32_t a = 0; a < g.axisSize; ++a) {
        const size_t k = base + static_cast<size_t>(a) * g.inner + i;
        out[k] = in[k] / norm;
      }
    }
  }
}

// Most paths rescale 128 * diff with the smaller-than-one multiply; int8 along the last
// axis goes through TFLite's integer_ops kernel, which folds the 2^7 into the shift of
// the general multiply instead. The two round differently, so each is kept as NNAPI
// computes it.
template <typename T>
void l2normQuant(const T* in, T* out, int32_t zeroPoint, int32_t outZeroPoint, int32_t lo,
                 int32_t hi, bool foldedShift, const Geometry& g) {
  for (uint32_t o = 0; o < g.outer; ++o) {
    const size_t base = static_cast<size_t>(o) * g.axisSize * g.inner;
    for (uint32_t i = 0; i < g.inner; ++i) {
      int32_t sum = 0;
      for (uint32_t a = 0; a < g.axisSize; ++a) {
        const int32_t v =
            static_cast<int32_t>(in[base + static_cast<size_t>(a) * g.inner + i]) - zeroPoint;
        sum += v * v;
      }
      int32_t mult;
      int shift;
      detection::invSqrtQuantizedMultiplier(sum, &mult, &shift);
      for (uint32_t a = 0; a < g.axisSize; ++a) {
        const size_t k = base + static_cast<size_t>(a) * g.inner + i;
        const int32_t v = static_cast<int32_t>(in[k]) - zeroPoint;
        const int32_t r =
            foldedShift ? quant::multiplyByQuantizedMultiplier(v, mult, shift + 7)
                        : quant::roundingDivideByPOT(
                              quant::saturatingRoundingDoublingHighMul(v * 128, mult), -shift);
        out[k] = static_cast<T>(quant::clamp(r + outZeroPoint, lo, hi));
      }
    }
  }
}

Status execute(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  auto axis = resolveAxis(ctx);
  NNC_TRY(axis);
  const Geometry g = geometry(in, *axis);
  if (in.elements() == 0) return Status::Ok();
  switch (in.type) {
    case OperandType::TENSOR_FLOAT32:
      l2normFloat(ctx.input<float>(0), ctx.output<float>(0), g);
      break;
    case OperandType::TENSOR_FLOAT16: {
      std::vector<float> x = detection::inputAsFloat(ctx, 0);
      std::vector<float> y(x.size());
      l2normFloat(x.data(), y.data(), g);
      detection::storeOutput(ctx, 0, y);
      break;
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      l2normQuant<uint8_t>(ctx.input<uint8_t>(0), ctx.output<uint8_t>(0), in.zeroPoint, 128, 0, 255,
                           false, g);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      l2normQuant<int8_t>(ctx.input<int8_t>(0), ctx.output<int8_t>(0), in.zeroPoint, 0, -128, 127,
                          /*foldedShift=*/*axis == static_cast<int32_t>(in.rank()) - 1, g);
      break;
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(in.type));
  }
  return Status::Ok();
}

}  // namespace

void registerL2Normalization(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::L2_NORMALIZATION, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
