// Fixed-point transcendental functions of the quantized LSTMs, and the integer LSTM
// helpers: accuracy against double, symmetries and edge cases.
#include "ops/recurrent/fixed_point_math.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/recurrent/integer_lstm.h"

namespace nncosim::ops::recurrent {
namespace {

using F0 = fx::Fx<int16_t, 0>;
using F3 = fx::Fx<int16_t, 3>;

TEST(FixedPointMath, LogisticAtZeroIsExactlyHalf) {
  EXPECT_EQ(fx::logistic(F3::fromRaw(0)).raw, 16384);
  EXPECT_EQ(fx::tanh(F3::fromRaw(0)).raw, 0);
}

TEST(FixedPointMath, Int16LogisticAndTanhTrackDouble) {
  double worstLogistic = 0, worstTanh = 0;
  for (int raw = -32768; raw <= 32767; raw += 7) {
    const double x = raw / 4096.0;
    const double l = fx::logistic(F3::fromRaw(static_cast<int16_t>(raw))).raw / 32768.0;
    const double t = fx::tanh(F3::fromRaw(static_cast<int16_t>(raw))).raw / 32768.0;
    worstLogistic = std::max(worstLogistic, std::abs(l - 1.0 / (1.0 + std::exp(-x))));
    worstTanh = std::max(worstTanh, std::abs(t - std::tanh(x)));
  }
  // About ten units in the last place of Q0.15 at worst.
  EXPECT_LT(worstLogistic, 5e-4);
  EXPECT_LT(worstTanh, 5e-4);
}

TEST(FixedPointMath, TanhIsOddAndLogisticComplements) {
  for (int raw = 1; raw <= 32767; raw += 97) {
    const int16_t r = static_cast<int16_t>(raw);
    EXPECT_EQ(fx::tanh(F3::fromRaw(r)).raw, -fx::tanh(F3::fromRaw(static_cast<int16_t>(-r))).raw);
    EXPECT_EQ(fx::logistic(F3::fromRaw(static_cast<int16_t>(-r))).raw,
              static_cast<int16_t>(32767 - fx::logistic(F3::fromRaw(r)).raw));
  }
}

TEST(FixedPointMath, ExtremeInputsSaturateWithoutOverflow) {
  EXPECT_GE(fx::logistic(F3::fromRaw(32767)).raw, 32700);
  EXPECT_LE(fx::logistic(F3::fromRaw(-32768)).raw, 67);
  EXPECT_GE(fx::tanh(F3::fromRaw(32767)).raw, 32700);
  EXPECT_LE(fx::tanh(F3::fromRaw(-32768)).raw, -32700);
  // Six integer bits go through exp's clamp below -32.
  using F6 = fx::Fx<int16_t, 6>;
  EXPECT_GE(fx::tanh(F6::fromRaw(32767)).raw, 32760);
}

TEST(FixedPointMath, SaturatingRescaleAndRoundingDivide) {
  EXPECT_EQ(fx::rescale<0>(F3::fromRaw(4096)).raw, 32767);  // 1.0 saturates in Q0.15
  EXPECT_EQ(fx::rescale<4>(F3::fromRaw(3)).raw, 2);         // 1.5 rounds away from zero
  EXPECT_EQ(fx::rescale<4>(F3::fromRaw(-3)).raw, -2);
  EXPECT_EQ(fx::highMul<int16_t>(-32768, -32768), 32767);
  EXPECT_EQ(fx::roundingDivideByPot<int16_t>(-384, 8), -2);  // -1.5 -> -2
  EXPECT_EQ(fx::roundingDivideByPot<int16_t>(384, 8), 2);
}

TEST(IntegerLstm, InvSqrtMultiplierMatchesDouble) {
  for (int32_t x : {2, 3, 100, 4096, 123457, 1 << 20, (1 << 29) + 5, 2000000000}) {
    int32_t m;
    int shift;
    invSqrtMultiplier(x, &m, &shift);
    const double real = m / 2147483648.0 * std::pow(2.0, shift);
    EXPECT_NEAR(real * std::sqrt(static_cast<double>(x)), 1.0, 1e-5) << x;
  }
  int32_t m;
  int shift;
  invSqrtMultiplier(0, &m, &shift);
  EXPECT_EQ(m, 2147483647);
  EXPECT_EQ(shift, 0);
}

TEST(IntegerLstm, GateAccumulateWrapsAndRequantizeSaturates) {
  const uint8_t x[2] = {255, 0};
  const uint8_t w[2] = {0, 255};
  GateOperand<uint8_t, uint8_t> op{x, -128, w, -128, 2};
  int32_t acc[1] = {10};
  gateAccumulate(op, 1, 1, acc);
  EXPECT_EQ(acc[0], 10 + 127 * -128 + -128 * 127);
  GateRequant r;
  r.multiplier = quant::quantizeMultiplier(4.0);
  int16_t out[1];
  gateRequantize(acc, 1, r, out);
  EXPECT_EQ(out[0], -32768);
  r.accumulate = true;
  const int32_t small[1] = {1};
  out[0] = 32766;
  gateRequantize(small, 1, r, out);
  EXPECT_EQ(out[0], 32767);
}

TEST(IntegerLstm, CheckedLog2) {
  int l = 0;
  EXPECT_TRUE(checkedLog2(1.0f / 2048, &l));
  EXPECT_EQ(l, -11);
  EXPECT_TRUE(checkedLog2(3.05176e-05f, &l));
  EXPECT_EQ(l, -15);
  EXPECT_FALSE(checkedLog2(0.001f, &l));
}

}  // namespace
}  // namespace nncosim::ops::recurrent
