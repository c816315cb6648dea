// The requantization parameters the NPU compiler shares with the reference: multiplier
// derivation (NNAPI's float product), per-channel multipliers, the bias scale rule,
// activation clamps and the output stage's rounding.
#include "ops/conv/conv_params.h"

#include <gtest/gtest.h>

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

Shape quant(OperandType t, float scale, int32_t zp) {
  Shape s;
  s.type = t;
  s.dimensions = {1};
  s.scale = scale;
  s.zeroPoint = zp;
  return s;
}

Shape perChannel(std::vector<float> scales, uint32_t dim) {
  Shape s;
  s.type = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  s.dimensions = {static_cast<uint32_t>(scales.size()), 1, 1, 1};
  s.channelQuant = hal::SymmPerChannelQuantParams{std::move(scales), dim};
  return s;
}

constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kS8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;

TEST(ConvParams, MultiplierUsesTheFloatProductOfTheScales) {
  // 0.1f * 0.1f rounded to float, then / 0.1f in double: NNAPI's derivation. Computing the
  // product in double would give multiplier 1717986944.
  const Shape in = quant(kU8, 0.1f, 0), filter = quant(kU8, 0.1f, 0);
  const Shape bias = quant(kI32, 0.1f * 0.1f, 0), out = quant(kU8, 0.1f, 0);
  auto p = makeConvQuantParams(in, filter, &bias, out, 0, 4);
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_EQ(p->multipliers.size(), 1u);
  EXPECT_EQ(p->multiplier(3).multiplier, 1717987014);
  EXPECT_EQ(p->multiplier(3).shift, -3);
}

TEST(ConvParams, BiasScaleMustMatchInputTimesFilter) {
  const Shape in = quant(kU8, 0.5f, 0), filter = quant(kU8, 0.5f, 0), out = quant(kU8, 1.0f, 0);
  const Shape good = quant(kI32, 0.25f, 0), bad = quant(kI32, 0.3f, 0);
  EXPECT_TRUE(makeConvQuantParams(in, filter, &good, out, 0, 1).ok());
  auto p = makeConvQuantParams(in, filter, &bad, out, 0, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("bias scale"), std::string::npos) << p.error();
  // No bias (BATCH_MATMUL): no rule.
  EXPECT_TRUE(makeConvQuantParams(in, filter, nullptr, out, 0, 1).ok());
}

TEST(ConvParams, PerChannelMultipliers) {
  const Shape in = quant(kS8, 0.5f, -3), out = quant(kS8, 1.0f, 5);
  const Shape filter = perChannel({0.5f, 0.25f, 3.0f}, 0);
  const Shape bias = quant(kI32, 0.0f, 0);  // NNAPI ignores per-channel bias scales
  auto p = makeConvQuantParams(in, filter, &bias, out, 0, 3);
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_TRUE(p->perChannel());
  EXPECT_EQ(p->inputZeroPoint, -3);
  EXPECT_EQ(p->filterZeroPoint, 0);
  EXPECT_EQ(p->outputZeroPoint, 5);
  EXPECT_EQ(p->multiplier(0).multiplier, 1 << 30);  // 0.25 = 0.5 * 2^-1
  EXPECT_EQ(p->multiplier(0).shift, -1);
  EXPECT_EQ(p->multiplier(1).shift, -2);            // 0.125
  EXPECT_EQ(p->multiplier(2).multiplier, 3 << 29);  // 1.5 = 0.75 * 2^1
  EXPECT_EQ(p->multiplier(2).shift, 1);
  // The scale count must match the output channels.
  EXPECT_FALSE(makeConvQuantParams(in, filter, &bias, out, 0, 4).ok());
}

TEST(ConvParams, ActivationClampsInTheOutputDomain) {
  const Shape in = quant(kU8, 0.5f, 0), filter = quant(kU8, 0.5f, 0);
  const Shape bias = quant(kI32, 0.25f, 0), out = quant(kU8, 0.5f, 128);
  struct Case {
    int32_t act, lo, hi;
  };
  for (const Case& c : {Case{0, 0, 255}, Case{1, 128, 255}, Case{2, 126, 130}, Case{3, 128, 140}}) {
    auto p = makeConvQuantParams(in, filter, &bias, out, c.act, 1);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p->activationMin, c.lo) << "activation " << c.act;
    EXPECT_EQ(p->activationMax, c.hi) << "activation " << c.act;
  }
  const Shape outS = quant(kS8, 0.5f, -100);
  auto s = makeConvQuantParams(quant(kS8, 0.5f, 0), quant(kS8, 0.5f, 0), &bias, outS, 3, 1);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->activationMin, -100);
  EXPECT_EQ(s->activationMax, -88);
  EXPECT_FALSE(makeConvQuantParams(in, filter, &bias, out, 4, 1).ok());
  EXPECT_FALSE(makeConvQuantParams(in, filter, &bias, out, -1, 1).ok());
}

TEST(ConvParams, RequantizeDoubleRoundingAndSaturation) {
  const Shape in = quant(kS8, 1.0f, 0), filter = quant(kS8, 0.5f, 0);
  const Shape bias = quant(kI32, 0.5f, 0), out = quant(kS8, 1.0f, 10);
  // Real multiplier 0.5 = 2^30 * 2^(0 - 31): shift 0, so only the high multiply rounds,
  // and its ties go toward +infinity.
  auto half = makeConvQuantParams(in, filter, &bias, out, 0, 1);
  ASSERT_TRUE(half.ok()) << half.error();
  EXPECT_EQ(half->multiplier(0).shift, 0);
  EXPECT_EQ(half->requantize(5, 0), 10 + 3);   // 2.5 -> 3
  EXPECT_EQ(half->requantize(-5, 0), 10 - 2);  // -2.5 -> -2
  EXPECT_EQ(half->requantize(1000, 0), 127);   // saturates to the type range
  EXPECT_EQ(half->requantize(-1000, 0), -128);
  // Real multiplier 0.25: shift -1, the rounding right shift rounds ties away from zero.
  const Shape out4 = quant(kS8, 2.0f, 10);
  auto quarter = makeConvQuantParams(in, filter, &bias, out4, 0, 1);
  ASSERT_TRUE(quarter.ok()) << quarter.error();
  EXPECT_EQ(quarter->multiplier(0).shift, -1);
  EXPECT_EQ(quarter->requantize(10, 0), 10 + 3);   // 2.5 -> 3
  EXPECT_EQ(quarter->requantize(-10, 0), 10 - 3);  // -2.5 -> -3
  // -5 * 0.25 = -1.25: the high multiply gives -2 (-2.5 toward +infinity), the shift -1.
  // -6 * 0.25 = -1.5: the high multiply gives -3 exactly, the shift -1.5 -> -2.
  EXPECT_EQ(quarter->requantize(-5, 0), 10 - 1);
  EXPECT_EQ(quarter->requantize(-6, 0), 10 - 2);
}

TEST(ConvParams, HugeMultiplierIsRejected) {
  const Shape in = quant(kU8, 1e6f, 0), filter = quant(kU8, 1e6f, 0);
  const Shape bias = quant(kI32, 1e12f, 0), out = quant(kU8, 1e-6f, 0);
  auto p = makeConvQuantParams(in, filter, &bias, out, 0, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("too large"), std::string::npos) << p.error();
}

TEST(ConvParams, TinyMultiplierFlushesToZero) {
  const Shape in = quant(kU8, 1e-12f, 0), filter = quant(kU8, 1e-12f, 0);
  const Shape bias = quant(kI32, 1e-24f, 0), out = quant(kU8, 1.0f, 7);
  auto p = makeConvQuantParams(in, filter, &bias, out, 0, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->multiplier(0).multiplier, 0);
  EXPECT_EQ(p->requantize(1 << 30, 0), 7);
}

}  // namespace
}  // namespace nncosim::ops::conv
