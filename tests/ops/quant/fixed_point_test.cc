// ops/quant's primitives against Debian's gemmlowp (the library TFLite and NNAPI's CPU path
// build on): SaturatingRoundingDoublingHighMul, RoundingDivideByPOT and TFLite's composed
// MultiplyByQuantizedMultiplier, on edge cases and many random values. The RTL requant
// unit is checked against these primitives, so they must be gemmlowp bit for bit.
#include "ops/quant/fixed_point.h"

#include <gemmlowp/fixedpoint/fixedpoint.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ops/quant/quant_params.h"

namespace nncosim::ops::quant {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

// Values that exercise signs, powers of two and rounding boundaries.
std::vector<int32_t> edgeValues() {
  std::vector<int32_t> v = {kMin, kMin + 1, kMax, kMax - 1, 0, 1, -1, 2, -2, 3, -3};
  for (int s = 1; s < 31; ++s) {
    const int32_t p = int32_t{1} << s;
    for (int32_t d : {-1, 0, 1}) {
      v.push_back(p + d);
      v.push_back(-p + d);
      v.push_back(p / 2 * 3 + d);  // odd multiples of half powers: rounding ties
      v.push_back(-(p / 2 * 3) + d);
    }
  }
  return v;
}

// TFLite's MultiplyByQuantizedMultiplier, written with gemmlowp's primitives.
int32_t referenceMultiply(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return gemmlowp::RoundingDivideByPOT(
      gemmlowp::SaturatingRoundingDoublingHighMul(x * (1 << left), multiplier), right);
}

TEST(FixedPoint, SaturatingRoundingDoublingHighMulMatchesGemmlowp) {
  const std::vector<int32_t> edges = edgeValues();
  for (int32_t a : edges)
    for (int32_t b : edges)
      ASSERT_EQ(saturatingRoundingDoublingHighMul(a, b),
                gemmlowp::SaturatingRoundingDoublingHighMul(a, b))
          << a << " * " << b;
  std::mt19937 rng(1);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  for (int i = 0; i < 2000000; ++i) {
    const int32_t a = any(rng), b = any(rng);
    ASSERT_EQ(saturatingRoundingDoublingHighMul(a, b),
              gemmlowp::SaturatingRoundingDoublingHighMul(a, b))
        << a << " * " << b;
  }
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMin, kMin), kMax);  // the one saturating case
}

TEST(FixedPoint, RoundingDivideByPOTMatchesGemmlowp) {
  for (int32_t x : edgeValues())
    for (int e = 0; e <= 31; ++e)
      ASSERT_EQ(roundingDivideByPOT(x, e), gemmlowp::RoundingDivideByPOT(x, e)) << x << " >> " << e;
  std::mt19937 rng(2);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int> exponent(0, 31);
  for (int i = 0; i < 2000000; ++i) {
    const int32_t x = any(rng);
    const int e = exponent(rng);
    ASSERT_EQ(roundingDivideByPOT(x, e), gemmlowp::RoundingDivideByPOT(x, e)) << x << " >> " << e;
  }
  // Ties round away from zero.
  EXPECT_EQ(roundingDivideByPOT(5, 1), 3);
  EXPECT_EQ(roundingDivideByPOT(-5, 1), -3);
  EXPECT_EQ(roundingDivideByPOT(-6, 2), -2);
}

TEST(FixedPoint, MultiplyByQuantizedMultiplierMatchesTfliteFormula) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> q31(int32_t{1} << 30, kMax);
  std::uniform_int_distribution<int> shifts(-31, 30);
  const std::vector<int32_t> edges = edgeValues();
  int checked = 0;
  for (int i = 0; i < 3000000; ++i) {
    const int32_t m = i % 17 == 0 ? (int32_t{1} << 30) : q31(rng);
    const int shift = shifts(rng);
    const int32_t x = i % 5 == 0 ? edges[static_cast<size_t>(i / 5) % edges.size()] : any(rng);
    // The reference's int32 x * (1 << shift) must not overflow (undefined in C++).
    if (shift > 0 && std::abs(int64_t{x} * (int64_t{1} << shift)) > kMax) continue;
    ASSERT_EQ(multiplyByQuantizedMultiplier(x, m, shift), referenceMultiply(x, m, shift))
        << x << " * " << m << " * 2^" << shift;
    ++checked;
  }
  EXPECT_GT(checked, 1000000);
}

TEST(FixedPoint, LegacyFormsMatchGemmlowp) {
  std::mt19937 rng(4);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> q31(int32_t{1} << 30, kMax);
  for (int i = 0; i < 1000000; ++i) {
    const int32_t x = any(rng), m = q31(rng);
    const int right = i % 32;
    ASSERT_EQ(
        multiplyByQuantizedMultiplierSmallerThanOne(x, m, right),
        gemmlowp::RoundingDivideByPOT(gemmlowp::SaturatingRoundingDoublingHighMul(x, m), right));
    const int left = i % 8;
    const int32_t small = x >> 8;  // fits after the left shift
    ASSERT_EQ(multiplyByQuantizedMultiplierGreaterThanOne(small, m, left),
              gemmlowp::SaturatingRoundingDoublingHighMul(small * (1 << left), m));
  }
}

TEST(QuantParams, QuantizeMultiplierIsFrexpRounded) {
  auto check = [](double real, int32_t m, int shift) {
    const QuantizedMultiplier q = quantizeMultiplier(real);
    EXPECT_EQ(q.multiplier, m) << real;
    EXPECT_EQ(q.shift, shift) << real;
  };
  check(0.0, 0, 0);
  check(0.5, 1 << 30, 0);
  check(1.0, 1 << 30, 1);
  check(0.75, 3 << 29, 0);
  check(1.0 - std::ldexp(1.0, -40), 1 << 30, 1);  // rounds up to 1.0: renormalized
  check(std::ldexp(1.0, -31), 1 << 30, -30);
  check(std::ldexp(1.0, -33), 0, 0);  // exponent below -31: flushed to zero
  // real = multiplier * 2^(shift - 31) within half a unit of the 31-bit mantissa.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> mantissa(0.5, 1.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (int i = 0; i < 100000; ++i) {
    const double real = std::ldexp(mantissa(rng), exponent(rng));
    const QuantizedMultiplier q = quantizeMultiplier(real);
    ASSERT_GE(q.multiplier, int32_t{1} << 30);
    const double back = std::ldexp(static_cast<double>(q.multiplier), q.shift - 31);
    ASSERT_LE(std::abs(back - real), std::ldexp(0.5, q.shift - 31) * (1 + 1e-12)) << real;
  }
}

TEST(QuantParams, ConvolutionMultiplierRoundsTheProductToFloat) {
  auto r = convolutionMultiplier(0.1f, 0.1f, 0.1f * 0.1f, 0.1f);
  ASSERT_TRUE(r.ok()) << r.error();
  const float product = 0.1f * 0.1f;
  EXPECT_EQ(*r, static_cast<double>(product) / static_cast<double>(0.1f));
  // The double product gives a different multiplier (1717986944 instead of 1717987014).
  EXPECT_NE(*r, static_cast<double>(0.1f) * static_cast<double>(0.1f) / static_cast<double>(0.1f));
  EXPECT_FALSE(convolutionMultiplier(0.5f, 0.5f, 0.26f, 1.0f).ok());
  EXPECT_TRUE(convolutionMultiplier(0.5f, 0.5f, 0.25f * (1 + 5e-7f), 1.0f).ok());
  EXPECT_FALSE(productMultiplier(0.5f, 0.5f, 0.0f).ok());
}

TEST(QuantParams, ActivationRange) {
  const ActivationRange u8 = typeRange(8, false), s8 = typeRange(8, true);
  EXPECT_EQ(u8.min, 0);
  EXPECT_EQ(u8.max, 255);
  EXPECT_EQ(s8.min, -128);
  EXPECT_EQ(s8.max, 127);
  // RELU6 at scale 0.1, zero point 10: 10 + round(6 / 0.1f) = 70.
  const ActivationRange r6 = activationRange(kActRelu6, 0.1f, 10, 0, 255);
  EXPECT_EQ(r6.min, 10);
  EXPECT_EQ(r6.max, 70);
  // Bounds are intersected with the type range.
  const ActivationRange r1 = activationRange(kActRelu1, 0.001f, -100, -128, 127);
  EXPECT_EQ(r1.min, -128);
  EXPECT_EQ(r1.max, 127);
  // round() of a tie goes away from zero: 1 / 0.4 = 2.5 -> 3.
  const ActivationRange tie = activationRange(kActRelu1, 0.4f, 0, -128, 127);
  EXPECT_EQ(tie.min, -3);
  EXPECT_EQ(tie.max, 3);
}

}  // namespace
}  // namespace nncosim::ops::quant
