// Fixed-point transcendental functions on int32 raw values, bit-exact with the gemmlowp
// formulas that TFLite's (and so NNAPI's) quantized LOGISTIC, TANH and SOFTMAX use.
//
// A value "Qk" has k integer bits and 31 - k fractional bits: real = raw / 2^(31 - k).
// Multiplying Qa by Qb gives Q(a + b) (a saturating rounding doubling high multiply).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/quant/fixed_point.h"

namespace nncosim::ops::elementwise::fxp {

inline constexpr int32_t kRawMax = std::numeric_limits<int32_t>::max();
inline constexpr int32_t kRawMin = std::numeric_limits<int32_t>::min();

// Wrapping add/sub (the formulas never overflow for in-range inputs; wrapping keeps the
// reference free of undefined behaviour when they would).
inline int32_t add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t mul(int32_t a, int32_t b) { return quant::saturatingRoundingDoublingHighMul(a, b); }

// x * 2^exponent: saturating for exponent > 0, rounding (ties away) for exponent < 0.
template <int kExponent>
inline int32_t mulByPOT(int32_t x) {
  if constexpr (kExponent > 0) {
    constexpr int32_t kThreshold = static_cast<int32_t>((int64_t{1} << (31 - kExponent)) - 1);
    if (x > kThreshold) return kRawMax;
    if (x < -kThreshold) return kRawMin;
    return static_cast<int32_t>(static_cast<uint32_t>(x) << kExponent);
  } else if constexpr (kExponent < 0) {
    return quant::roundingDivideByPOT(x, -kExponent);
  } else {
    return x;
  }
}

// Changes the format from Q(kSrc) to Q(kDst).
template <int kSrc, int kDst>
inline int32_t rescale(int32_t x) {
  return mulByPOT<kSrc - kDst>(x);
}

// (a + b) / 2 rounded half away from zero.
inline int32_t roundingHalfSum(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + b;
  return static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

// exp(a) for a in [-1/4, 0): Q0 in, Q0 out. A Taylor expansion around -1/8.
inline int32_t expOnIntervalNegQuarterTo0(int32_t a) {
  constexpr int32_t kExpMinusOneEighth = 1895147668;  // exp(-1/8) in Q0
  constexpr int32_t kOneThird = 715827883;            // 1/3 in Q0
  const int32_t x = add(a, 1 << 28);                  // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4Over4 = mulByPOT<-2>(x4);
  const int32_t poly = mulByPOT<-1>(add(mul(add(x4Over4, x3), kOneThird), x2));
  return add(kExpMinusOneEighth, mul(kExpMinusOneEighth, add(x, poly)));
}

// exp(a) for a <= 0, a in Q(kIntegerBits); result in Q0. Splits a into a multiple of 1/4
// (applied as a product of exp(-2^k) constants) and a remainder in [-1/4, 0).
template <int kIntegerBits>
inline int32_t expOnNegativeValues(int32_t a) {
  constexpr int kFractionalBits = 31 - kIntegerBits;
  constexpr int32_t kOneQuarter = int32_t{1} << (kFractionalBits - 2);
  const int32_t aModQuarterMinusQuarter = sub(a & (kOneQuarter - 1), kOneQuarter);
  int32_t result = expOnIntervalNegQuarterTo0(rescale<kIntegerBits, 0>(aModQuarterMinusQuarter));
  const int32_t remainder = sub(aModQuarterMinusQuarter, a);
  // exp(-2^k) in Q0 for k = -2..4.
  constexpr int32_t kMultipliers[] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535,   720401,     242};
  for (int k = -2; k <= 4; ++k) {
    if (kIntegerBits > k) {
      const int shift = kFractionalBits + k;
      if (remainder & (int32_t{1} << shift)) result = mul(result, kMultipliers[k + 2]);
    }
  }
  if constexpr (kIntegerBits > 5) {
    // Below -32 the result underflows to zero.
    constexpr int32_t kClamp = -(int32_t{1} << (36 - kIntegerBits));
    if (a < kClamp) result = 0;
  }
  if (a == 0) result = kRawMax;  // exp(0) = 1, the largest Q0 value
  return result;
}

// 1 / (1 + a) for a in [0, 1): Q0 in, Q0 out. Newton-Raphson on the half denominator.
inline int32_t oneOverOnePlusX(int32_t a) {
  const int32_t halfDenominator = roundingHalfSum(a, kRawMax);
  constexpr int32_t k48Over17 = 1515870810;      // Q2
  constexpr int32_t kNeg32Over17 = -1010580540;  // Q2
  constexpr int32_t kOneQ2 = int32_t{1} << 29;
  int32_t x = add(k48Over17, mul(halfDenominator, kNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int32_t oneMinusHalfDenTimesX = sub(kOneQ2, mul(halfDenominator, x));
    x = add(x, rescale<4, 2>(mul(x, oneMinusHalfDenTimesX)));
  }
  return rescale<1, 0>(x);  // x / 2 as a Q1 value, then to Q0
}

// (1 - a) / (1 + a) for a in [0, 1): Q0 in, Q0 out.
inline int32_t oneMinusXOverOnePlusX(int32_t a) {
  const int32_t halfDenominator = roundingHalfSum(a, kRawMax);
  constexpr int32_t k48Over17 = 1515870810;
  constexpr int32_t kNeg32Over17 = -1010580540;
  constexpr int32_t kOneQ2 = int32_t{1} << 29;
  int32_t x = add(k48Over17, mul(halfDenominator, kNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int32_t oneMinusHalfDenTimesX = sub(kOneQ2, mul(halfDenominator, x));
    x = add(x, rescale<4, 2>(mul(x, oneMinusHalfDenTimesX)));
  }
  return rescale<2, 0>(sub(x, kOneQ2));
}

// 1 / (1 + exp(-a)), a in Q(kIntegerBits); result in Q0.
template <int kIntegerBits>
inline int32_t logistic(int32_t a) {
  if (a == 0) return int32_t{1} << 30;  // 0.5
  const bool positive = a > 0;
  const int32_t absA = positive ? a : sub(0, a);
  const int32_t ifPositive = oneOverOnePlusX(expOnNegativeValues<kIntegerBits>(sub(0, absA)));
  return positive ? ifPositive : sub(kRawMax, ifPositive);
}

// tanh(a), a in Q(kIntegerBits); result in Q0.
template <int kIntegerBits>
inline int32_t tanh(int32_t a) {
  if (a == 0) return 0;
  const bool negative = a < 0;
  const int32_t negAbs = negative ? a : sub(0, a);
  // -tanh(n) for n < 0 is (1 - exp(2n)) / (1 + exp(2n)); 2n is n read as Q(k + 1).
  const int32_t t = oneMinusXOverOnePlusX(expOnNegativeValues<kIntegerBits + 1>(negAbs));
  return negative ? sub(0, t) : t;
}

// Leading zero bits of a 32-bit value (32 for zero).
inline int countLeadingZeros(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }

// floor of the largest input (in units before the left shift) that, rescaled to
// Q(integerBits), stays below the format's maximum (NNAPI's CalculateInputRadius).
inline int32_t inputRadius(int integerBits, int leftShift) {
  const double maxRescaled = 1.0 * ((1 << integerBits) - 1) *
                             static_cast<double>(int64_t{1} << (31 - integerBits)) /
                             static_cast<double>(int64_t{1} << leftShift);
  return static_cast<int32_t>(std::floor(maxRescaled));
}

}  // namespace nncosim::ops::elementwise::fxp
