// Integer requantization primitives, exactly as NNAPI's CPU path computes them (the
// gemmlowp/TFLite fixed-point formulas). The RTL requant unit (rtl/nnc_requant.sv)
// mirrors these bit for bit; docs/quantization.md gives the formulas.
#pragma once

#include <cstdint>
#include <limits>

namespace nncosim::ops::quant {

// a * b / 2^31 rounded to nearest with ties toward +infinity, i.e.
// floor((a * b + 2^30) / 2^31) (gemmlowp's nudge-and-truncate form: 2.5 -> 3, -2.5 -> -2),
// saturating the one overflow case (a == b == INT32_MIN).
inline int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  // Division truncates toward zero, as gemmlowp's does.
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero (0 <= exponent <= 31).
inline int32_t roundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x * multiplier * 2^shift with multiplier a Q31 value in [2^30, 2^31) (or 0):
// a left shift (shift > 0) before the high multiply, a rounding right shift after.
// This is TFLite's MultiplyByQuantizedMultiplier, with its double rounding.
inline int32_t multiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int leftShift = shift > 0 ? shift : 0;
  const int rightShift = shift > 0 ? 0 : -shift;
  // The left shift wraps like the reference's int32 multiply by (1 << leftShift).
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << leftShift);
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(shifted, multiplier), rightShift);
}

// The pre-1.2 NNAPI form for multipliers below one: rightShift >= 0.
inline int32_t multiplyByQuantizedMultiplierSmallerThanOne(int32_t x, int32_t multiplier,
                                                           int rightShift) {
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(x, multiplier), rightShift);
}

// For multipliers of at least one: leftShift >= 0.
inline int32_t multiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t multiplier,
                                                           int leftShift) {
  return saturatingRoundingDoublingHighMul(
      static_cast<int32_t>(static_cast<uint32_t>(x) << leftShift), multiplier);
}

// The 16x8 path's requantization of an int64 accumulator (TFLite's 16x8 quantization
// scheme: int16 activations, int8 weights, 64-bit accumulators). The Q31 multiplier is
// first reduced to Q15 (rounded; capped at 0x7FFF), then
//   result = (x * reduced + 2^(totalShift - 1)) >> totalShift,   totalShift = 15 - shift,
// in 64-bit two's complement arithmetic (the product and the rounding add wrap), keeping
// the low 32 bits of the arithmetic right shift. One rounding instead of two; the
// requant unit's acc64 mode does exactly this. Valid for -31 <= shift <= 14.
inline int32_t reducedMultiplier(int32_t multiplier) {
  return multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
}
inline int32_t multiplyByQuantizedMultiplier64(int64_t x, int32_t multiplier, int shift) {
  const int totalShift = 15 - shift;
  const uint64_t product =
      static_cast<uint64_t>(x) *
      static_cast<uint64_t>(static_cast<int64_t>(reducedMultiplier(multiplier)));
  const auto rounded = static_cast<int64_t>(product + (uint64_t{1} << (totalShift - 1)));
  // >> of a negative int64 is arithmetic (C++20 guarantees it; every C++17 compiler we
  // build with does it).
  return static_cast<int32_t>(static_cast<uint64_t>(rounded >> totalShift));
}

inline int32_t clamp(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

}  // namespace nncosim::ops::quant
