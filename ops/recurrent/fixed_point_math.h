// Fixed-point values with a compile-time number of integer bits over int16 or int32
// raw integers, and the transcendental functions (exp on negatives, tanh, logistic) the
// quantized LSTMs use. The arithmetic reproduces gemmlowp's fixedpoint formulas bit for
// bit, because NNAPI's CPU reference (QUANTIZED_16BIT_LSTM, QUANTIZED_LSTM) is built on
// them: plain +/- wrap, products are saturating rounding doubling high multiplies,
// rescales saturate on the way up and round to nearest on the way down.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace nncosim::ops::recurrent::fx {

template <typename Raw>
constexpr int kRawBits = static_cast<int>(sizeof(Raw) * 8);

// Two's complement wrap of an exact integer into Raw (the reference's int16/int32 casts).
template <typename Raw>
inline Raw wrap(int64_t v) {
  using U = std::make_unsigned_t<Raw>;
  return static_cast<Raw>(static_cast<U>(static_cast<uint64_t>(v)));
}

template <typename Raw>
inline Raw rawMin() {
  return std::numeric_limits<Raw>::min();
}
template <typename Raw>
inline Raw rawMax() {
  return std::numeric_limits<Raw>::max();
}

// round(a * b / 2^(bits-1)), ties away from zero; min * min saturates to max.
template <typename Raw>
inline Raw highMul(Raw a, Raw b) {
  if (a == b && a == rawMin<Raw>()) return rawMax<Raw>();
  constexpr int kBits = kRawBits<Raw>;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << (kBits - 2)) : 1 - (int64_t{1} << (kBits - 2));
  return static_cast<Raw>((ab + nudge) / (int64_t{1} << (kBits - 1)));
}

// x / 2^exponent, rounded to nearest with ties away from zero.
template <typename Raw>
inline Raw roundingDivideByPot(Raw x, int exponent) {
  const int64_t mask = (int64_t{1} << exponent) - 1;
  const int64_t remainder = static_cast<int64_t>(x) & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<Raw>((static_cast<int64_t>(x) >> exponent) + (remainder > threshold ? 1 : 0));
}

// x * 2^Exponent: saturating when Exponent > 0, rounding when Exponent < 0.
template <int Exponent, typename Raw>
inline Raw saturatingRoundingMulByPot(Raw x) {
  if constexpr (Exponent == 0) {
    return x;
  } else if constexpr (Exponent > 0) {
    constexpr int64_t kThreshold = (int64_t{1} << (kRawBits<Raw> - 1 - Exponent)) - 1;
    if (x > kThreshold) return rawMax<Raw>();
    if (x < -kThreshold) return rawMin<Raw>();
    return static_cast<Raw>(static_cast<int64_t>(x) * (int64_t{1} << Exponent));
  } else {
    return roundingDivideByPot<Raw>(x, -Exponent);
  }
}

// (a + b) / 2 rounded to nearest, ties away from zero.
template <typename Raw>
inline Raw roundingHalfSum(Raw a, Raw b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<Raw>((sum + sign) / 2);
}

// a + b: saturating for 16-bit raws, plain (wrapping) for 32-bit ones.
template <typename Raw>
inline Raw addSaturatingIf16Bit(Raw a, Raw b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  if constexpr (sizeof(Raw) == 2) {
    if (sum > rawMax<Raw>()) return rawMax<Raw>();
    if (sum < rawMin<Raw>()) return rawMin<Raw>();
    return static_cast<Raw>(sum);
  } else {
    return wrap<Raw>(sum);
  }
}

// A real value raw / 2^(bits - 1 - IntBits), in [-2^IntBits, 2^IntBits).
template <typename Raw, int IntBits>
struct Fx {
  static_assert(IntBits >= 0 && IntBits < kRawBits<Raw>, "bad integer bits");
  static constexpr int kFracBits = kRawBits<Raw> - 1 - IntBits;
  Raw raw = 0;

  static Fx fromRaw(Raw r) {
    Fx f;
    f.raw = r;
    return f;
  }
  static Fx zero() { return fromRaw(0); }
  // With no integer bits 1.0 is not representable: the largest value stands for it.
  static Fx one() {
    return fromRaw(IntBits == 0 ? rawMax<Raw>() : static_cast<Raw>(int64_t{1} << kFracBits));
  }
  template <int Exponent>
  static Fx constantPot() {
    static_assert(kFracBits + Exponent >= 0 && kFracBits + Exponent < kRawBits<Raw> - 1,
                  "power of two not representable");
    return fromRaw(static_cast<Raw>(int64_t{1} << (kFracBits + Exponent)));
  }
  // Constants are written as 32-bit raws and rounded down to the raw width.
  static Fx fromInt32Constant(int32_t raw32) {
    return fromRaw(static_cast<Raw>(roundingDivideByPot<int32_t>(raw32, 32 - kRawBits<Raw>)));
  }
};

template <typename Raw, int A, int B>
inline Fx<Raw, A + B> operator*(Fx<Raw, A> a, Fx<Raw, B> b) {
  return Fx<Raw, A + B>::fromRaw(highMul<Raw>(a.raw, b.raw));
}
template <typename Raw, int I>
inline Fx<Raw, I> operator+(Fx<Raw, I> a, Fx<Raw, I> b) {
  return Fx<Raw, I>::fromRaw(wrap<Raw>(int64_t{a.raw} + int64_t{b.raw}));
}
template <typename Raw, int I>
inline Fx<Raw, I> operator-(Fx<Raw, I> a, Fx<Raw, I> b) {
  return Fx<Raw, I>::fromRaw(wrap<Raw>(int64_t{a.raw} - int64_t{b.raw}));
}
template <typename Raw, int I>
inline Fx<Raw, I> operator-(Fx<Raw, I> a) {
  return Fx<Raw, I>::fromRaw(wrap<Raw>(-int64_t{a.raw}));
}

// Same raw, different integer bits: an exact multiplication by 2^Exponent.
template <int Exponent, typename Raw, int I>
inline Fx<Raw, I + Exponent> exactMulByPot(Fx<Raw, I> a) {
  return Fx<Raw, I + Exponent>::fromRaw(a.raw);
}

template <int Exponent, typename Raw, int I>
inline Fx<Raw, I> saturatingRoundingMulByPot(Fx<Raw, I> a) {
  return Fx<Raw, I>::fromRaw(saturatingRoundingMulByPot<Exponent, Raw>(a.raw));
}

// Changes the number of integer bits, keeping the value (saturating / rounding).
template <int DstBits, typename Raw, int SrcBits>
inline Fx<Raw, DstBits> rescale(Fx<Raw, SrcBits> x) {
  return Fx<Raw, DstBits>::fromRaw(saturatingRoundingMulByPot<SrcBits - DstBits, Raw>(x.raw));
}

template <typename Raw, int I>
inline Fx<Raw, I> saturatingAdd(Fx<Raw, I> a, Fx<Raw, I> b) {
  const int64_t sum = int64_t{a.raw} + int64_t{b.raw};
  if (sum > rawMax<Raw>()) return Fx<Raw, I>::fromRaw(rawMax<Raw>());
  if (sum < rawMin<Raw>()) return Fx<Raw, I>::fromRaw(rawMin<Raw>());
  return Fx<Raw, I>::fromRaw(static_cast<Raw>(sum));
}

template <typename Raw, int I>
inline Fx<Raw, I> roundingHalfSumFx(Fx<Raw, I> a, Fx<Raw, I> b) {
  return Fx<Raw, I>::fromRaw(roundingHalfSum<Raw>(a.raw, b.raw));
}

// exp(a) for a in [-1/4, 0): a Taylor polynomial around -1/8.
template <typename Raw>
inline Fx<Raw, 0> expOnQuarterInterval(Fx<Raw, 0> a) {
  using F = Fx<Raw, 0>;
  const F expMinusEighth = F::fromInt32Constant(1895147668);  // exp(-1/8)
  const F oneThird = F::fromInt32Constant(715827883);
  const F x = a + F::template constantPot<-3>();
  const F x2 = x * x;
  const F x3 = x2 * x;
  const F x4 = x2 * x2;
  const F x4Over4 = saturatingRoundingMulByPot<-2>(x4);
  const F poly = saturatingRoundingMulByPot<-1>(((x4Over4 + x3) * oneThird) + x2);
  return F::fromRaw(
      addSaturatingIf16Bit<Raw>(expMinusEighth.raw, (expMinusEighth * (x + poly)).raw));
}

// exp(a) for a <= 0: the remainder modulo 1/4 goes through the polynomial, each higher
// bit multiplies by a tabulated exp(-2^k).
template <typename Raw, int I>
inline Fx<Raw, 0> expOnNegativeValues(Fx<Raw, I> a) {
  using In = Fx<Raw, I>;
  using Out = Fx<Raw, 0>;
  constexpr int kFrac = In::kFracBits;
  const In quarter = In::template constantPot<-2>();
  const In mask = quarter - In::fromRaw(1);
  const In modQuarterMinusQuarter = In::fromRaw(static_cast<Raw>(a.raw & mask.raw)) - quarter;
  Out result = expOnQuarterInterval<Raw>(rescale<0>(modQuarterMinusQuarter));
  const Raw remainder = (modQuarterMinusQuarter - a).raw;

  struct Step {
    int exponent;
    int32_t multiplier;  // exp(-2^exponent) as a 32-bit Q0.31 raw
  };
  static constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084},
                                    {1, 290630308},   {2, 39332535},    {3, 720401},
                                    {4, 242}};
  for (const Step& s : kSteps) {
    if (I > s.exponent) {
      const int shift = kFrac + s.exponent;
      const int64_t bit = int64_t{1} << shift;
      if ((static_cast<int64_t>(remainder) & static_cast<int64_t>(wrap<Raw>(bit))) != 0)
        result = result * Out::fromInt32Constant(s.multiplier);
    }
  }
  if constexpr (I > 5) {
    // Below -32 the result is zero.
    constexpr int kClampBits = 36 - I;
    const In clamp = In::fromInt32Constant(-(int32_t{1} << kClampBits));
    if (a.raw < clamp.raw) result = Out::zero();
  }
  if (a.raw == 0) result = Out::one();
  return result;
}

// Newton-Raphson iterations for 1 / (2 * halfDenominator), in Q2.
template <typename Raw>
inline Fx<Raw, 2> newtonReciprocal(Fx<Raw, 0> halfDenominator) {
  using F2 = Fx<Raw, 2>;
  const F2 c48Over17 = F2::fromInt32Constant(1515870810);
  const F2 cNeg32Over17 = F2::fromInt32Constant(-1010580540);
  F2 x = c48Over17 + halfDenominator * cNeg32Over17;
  for (int i = 0; i < 3; ++i) {
    const F2 halfDenominatorTimesX = halfDenominator * x;
    const F2 oneMinus = F2::one() - halfDenominatorTimesX;
    x = x + rescale<2>(x * oneMinus);
  }
  return x;
}

// (1 - a) / (1 + a) for a in (0, 1).
template <typename Raw>
inline Fx<Raw, 0> oneMinusXOverOnePlusX(Fx<Raw, 0> a) {
  using F0 = Fx<Raw, 0>;
  using F2 = Fx<Raw, 2>;
  const F2 x = newtonReciprocal<Raw>(roundingHalfSumFx(a, F0::one()));
  return rescale<0>(x - F2::one());
}

// 1 / (1 + a) for a in (0, 1).
template <typename Raw>
inline Fx<Raw, 0> oneOverOnePlusX(Fx<Raw, 0> a) {
  using F0 = Fx<Raw, 0>;
  const auto x = newtonReciprocal<Raw>(roundingHalfSumFx(a, F0::one()));
  return rescale<0>(exactMulByPot<-1>(x));
}

template <typename Raw, int I>
inline Fx<Raw, 0> tanh(Fx<Raw, I> a) {
  using Out = Fx<Raw, 0>;
  if (a.raw == 0) return Out::zero();
  const bool negative = a.raw < 0;
  const Fx<Raw, I> n = negative ? a : -a;  // n <= 0
  // -tanh(n) = (1 - exp(2n)) / (1 + exp(2n))
  const Out t = oneMinusXOverOnePlusX<Raw>(expOnNegativeValues(exactMulByPot<1>(n)));
  return negative ? -t : t;
}

template <typename Raw, int I>
inline Fx<Raw, 0> logistic(Fx<Raw, I> a) {
  using Out = Fx<Raw, 0>;
  if (a.raw == 0) return Out::fromInt32Constant(int32_t{1} << 30);  // 0.5
  const bool positive = a.raw > 0;
  const Fx<Raw, I> absolute = positive ? a : -a;
  const Out ifPositive = oneOverOnePlusX<Raw>(expOnNegativeValues(-absolute));
  return positive ? ifPositive : Out::one() - ifPositive;
}

}  // namespace nncosim::ops::recurrent::fx
