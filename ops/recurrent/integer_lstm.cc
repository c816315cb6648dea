#include "ops/recurrent/integer_lstm.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/quant/fixed_point.h"
#include "ops/recurrent/fixed_point_math.h"

namespace nncosim::ops::recurrent {

template <typename Out>
void gateRequantize(const int32_t* acc, size_t n, const GateRequant& r, Out* out) {
  for (size_t k = 0; k < n; ++k) {
    int64_t v =
        quant::multiplyByQuantizedMultiplier(acc[k], r.multiplier.multiplier, r.multiplier.shift);
    v += r.zeroPoint;
    if (r.accumulate) v += out[k];
    out[k] = static_cast<Out>(std::min<int64_t>(r.max, std::max<int64_t>(r.min, v)));
  }
}
template void gateRequantize<int16_t>(const int32_t*, size_t, const GateRequant&, int16_t*);
template void gateRequantize<int8_t>(const int32_t*, size_t, const GateRequant&, int8_t*);
template void gateRequantize<int32_t>(const int32_t*, size_t, const GateRequant&, int32_t*);

hal::Result<quant::QuantizedMultiplier> scaleMultiplier(double real, const char* what) {
  if (!(real >= 0) || !std::isfinite(real))
    return hal::fail("effective scale of ", what, " is ", real, ", expected a finite value >= 0");
  const quant::QuantizedMultiplier m = quant::quantizeMultiplier(real);
  if (m.shift > 31)
    return hal::fail("effective scale of ", what, " is ", real, ", too large to requantize");
  return m;
}

void fillBias(const int32_t* bias, uint32_t batch, uint32_t units, int32_t* acc) {
  for (uint32_t b = 0; b < batch; ++b)
    for (uint32_t u = 0; u < units; ++u) acc[size_t{b} * units + u] = bias ? bias[u] : 0;
}

std::vector<int32_t> foldZeroPoint(const int8_t* weights, uint32_t units, uint32_t depth,
                                   int32_t scalar, const int32_t* bias) {
  std::vector<int32_t> out(units);
  for (uint32_t u = 0; u < units; ++u) {
    int32_t rowSum = 0;
    for (uint32_t d = 0; d < depth; ++d) rowSum += weights[size_t{u} * depth + d];
    out[u] = static_cast<int32_t>(static_cast<uint32_t>(bias ? bias[u] : 0) +
                                  static_cast<uint32_t>(rowSum) * static_cast<uint32_t>(scalar));
  }
  return out;
}

void sigmoidQ3(const int16_t* in, size_t n, int16_t* out) {
  for (size_t k = 0; k < n; ++k) out[k] = fx::logistic(fx::Fx<int16_t, 3>::fromRaw(in[k])).raw;
}

namespace {

template <int Bits>
void tanhBits(const int16_t* in, size_t n, int16_t* out) {
  for (size_t k = 0; k < n; ++k) out[k] = fx::tanh(fx::Fx<int16_t, Bits>::fromRaw(in[k])).raw;
}

}  // namespace

hal::Status tanhQ(int integerBits, const int16_t* in, size_t n, int16_t* out) {
  switch (integerBits) {
    case 0:
      tanhBits<0>(in, n, out);
      break;
    case 1:
      tanhBits<1>(in, n, out);
      break;
    case 2:
      tanhBits<2>(in, n, out);
      break;
    case 3:
      tanhBits<3>(in, n, out);
      break;
    case 4:
      tanhBits<4>(in, n, out);
      break;
    case 5:
      tanhBits<5>(in, n, out);
      break;
    case 6:
      tanhBits<6>(in, n, out);
      break;
    default:
      return hal::fail("tanh input with ", integerBits, " integer bits is not supported (0-6)");
  }
  return hal::Status::Ok();
}

void mulShift(const int16_t* a, const int16_t* b, size_t n, int shift, int16_t* out) {
  for (size_t k = 0; k < n; ++k)
    out[k] = static_cast<int16_t>(
        quant::roundingDivideByPOT(static_cast<int32_t>(a[k]) * static_cast<int32_t>(b[k]), shift));
}

void mulRequantToInt8(const int16_t* a, const int16_t* b, size_t n,
                      const quant::QuantizedMultiplier& m, int32_t zeroPoint, int8_t* out) {
  for (size_t k = 0; k < n; ++k) {
    int32_t v = static_cast<int32_t>(a[k]) * static_cast<int32_t>(b[k]);
    v = quant::multiplyByQuantizedMultiplier(v, m.multiplier, m.shift) - zeroPoint;
    out[k] = static_cast<int8_t>(std::min(127, std::max(-128, v)));
  }
}

void addSaturate(const int16_t* a, const int16_t* b, size_t n, int16_t* out) {
  for (size_t k = 0; k < n; ++k)
    out[k] = static_cast<int16_t>(std::min(32767, std::max(-32768, int32_t{a[k]} + b[k])));
}

void peepholeAccumulate(const int16_t* weights, const int16_t* cell, uint32_t batch, uint32_t units,
                        const quant::QuantizedMultiplier& m, int16_t* result) {
  for (uint32_t b = 0; b < batch; ++b) {
    for (uint32_t u = 0; u < units; ++u) {
      const size_t k = size_t{b} * units + u;
      int32_t prod = static_cast<int32_t>(weights[u]) * static_cast<int32_t>(cell[k]);
      prod = quant::multiplyByQuantizedMultiplier(prod, m.multiplier, m.shift);
      result[k] = static_cast<int16_t>(std::min(32767, std::max(-32768, prod + result[k])));
    }
  }
}

void invSqrtMultiplier(int32_t x, int32_t* multiplier, int* shift) {
  if (x <= 1) {
    // 0 is treated like 1 (no normalization possible); 1 would overflow below.
    *multiplier = std::numeric_limits<int32_t>::max();
    *shift = 0;
    return;
  }
  int s = 11;
  while (x >= (1 << 29)) {
    x /= 4;
    ++s;
  }
  // Normalize x into [2^27, 2^29) by an even left shift.
  const int leadingZeros = __builtin_clz(static_cast<uint32_t>(x));
  const int pairs = (leadingZeros - 1) / 2 - 1;
  s -= pairs;
  x <<= 2 * pairs;
  using F3 = fx::Fx<int32_t, 3>;
  using F0 = fx::Fx<int32_t, 0>;
  const F3 input = F3::fromRaw(x >> 1);
  const F3 halfInput = fx::saturatingRoundingMulByPot<-1>(input);
  const F3 threeHalves = F3::fromInt32Constant((1 << 28) + (1 << 27));
  // Newton-Raphson for 1/sqrt, from x = 1.
  F3 y = F3::one();
  for (int i = 0; i < 5; ++i) {
    const F3 y3 = fx::rescale<3>(y * y * y);
    y = fx::rescale<3>(threeHalves * y - halfInput * y3);
  }
  const F0 halfSqrt2 = F0::fromInt32Constant(1518500250);
  y = y * halfSqrt2;
  int32_t m = y.raw;
  if (s < 0) {
    m = static_cast<int32_t>(static_cast<uint32_t>(m) << -s);
    s = 0;
  }
  *multiplier = m;
  *shift = -s;  // the reference's reverse_shift of -1: a right shift
}

void layerNormInt16(const int16_t* in, const int16_t* weights, const int32_t* bias,
                    const quant::QuantizedMultiplier& scale, int32_t varianceLimit, uint32_t batch,
                    uint32_t units, int16_t* out) {
  constexpr int32_t kOverflowGuard = 1 << 20;
  for (uint32_t b = 0; b < batch; ++b) {
    const int16_t* x = in + size_t{b} * units;
    int16_t* y = out + size_t{b} * units;
    int64_t sum = 0, sumSq = 0;
    for (uint32_t u = 0; u < units; ++u) {
      const int32_t v = x[u];
      sum += v;
      sumSq += v * v;
    }
    // Mean and variance in units of 2^-10 (the reference's fixed-point choice).
    const int32_t mean = static_cast<int32_t>(sum * 1024 / static_cast<int64_t>(units));
    const int32_t guardOverN = kOverflowGuard / static_cast<int32_t>(units);
    const int64_t variance = sumSq * guardOverN - static_cast<int64_t>(mean) * mean;
    int32_t variance2 = static_cast<int32_t>(variance / kOverflowGuard);
    if (variance2 < 1) variance2 = varianceLimit;
    int32_t invA;
    int invB;
    invSqrtMultiplier(variance2, &invA, &invB);
    for (uint32_t u = 0; u < units; ++u) {
      const int32_t shifted = 1024 * static_cast<int32_t>(x[u]) - mean;
      const int32_t rescaled = quant::multiplyByQuantizedMultiplier(shifted, invA, invB);
      // int32 product and bias add, wrapping like the reference's.
      const int64_t v3 =
          static_cast<int32_t>(static_cast<uint32_t>(rescaled) *
                                   static_cast<uint32_t>(static_cast<int32_t>(weights[u])) +
                               static_cast<uint32_t>(bias[u]));
      const int32_t v4 = static_cast<int32_t>((v3 > 0 ? v3 + 512 : v3 - 512) / 1024);
      int32_t v5 = quant::multiplyByQuantizedMultiplier(v4, scale.multiplier, scale.shift + 12);
      y[u] = static_cast<int16_t>(std::min(32767, std::max(-32768, v5)));
    }
  }
}

bool checkedLog2(float x, int* log2) {
  const float l = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(l);
  *log2 = static_cast<int>(rounded);
  return std::abs(l - rounded) < 1e-3f;
}

}  // namespace nncosim::ops::recurrent
