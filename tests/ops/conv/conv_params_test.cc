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

// --- the 16x8 mode (TENSOR_QUANT16_SYMM activations, int8 symmetric weights) ----------

constexpr OperandType kQ16 = OperandType::TENSOR_QUANT16_SYMM;
constexpr OperandType kQ8Symm = OperandType::TENSOR_QUANT8_SYMM;

TEST(ConvParams16x8, WideParametersAndInt16ActivationRanges) {
  // M_real = float(0.5 * 0.25) / 4 = 2^-5: M = 2^30, shift -4.
  const Shape in = quant(kQ16, 0.5f, 0), filter = quant(kQ8Symm, 0.25f, 0);
  const Shape bias = quant(kI32, 0.125f, 0), out = quant(kQ16, 4.0f / 1024, 0);
  struct Case {
    int32_t act, lo, hi;
  };
  // q(f) = round(f / S_out) with S_out = 2^-8: RELU6 -> 1536, RELU1 -> +-256.
  for (const Case& c :
       {Case{0, -32768, 32767}, Case{1, 0, 32767}, Case{2, -256, 256}, Case{3, 0, 1536}}) {
    auto p = makeConvQuantParams(in, filter, &bias, out, c.act, 1);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_TRUE(p->wide);
    EXPECT_EQ(p->multiplier(0).multiplier, 1 << 30);
    EXPECT_EQ(p->multiplier(0).shift, 6);  // 0.125 / 2^-8 = 32 = 0.5 * 2^6
    EXPECT_EQ(p->activationMin, c.lo) << "activation " << c.act;
    EXPECT_EQ(p->activationMax, c.hi) << "activation " << c.act;
  }
  // An output scale so small that 1 / scale passes 2^31 (int16 outputs have them far more
  // often than int8 ones): the clamps saturate to the type range instead of overflowing.
  // M_real = float(1e-6 * 1e-3) / 1e-12 ~ 1000: shift 10.
  for (const Case& c : {Case{2, -32768, 32767}, Case{3, 0, 32767}}) {
    auto p = makeConvQuantParams(quant(kQ16, 1e-6f, 0), perChannel({1e-3f}, 0), &bias,
                                 quant(kQ16, 1e-12f, 0), c.act, 1);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(p->multiplier(0).shift, 10);
    EXPECT_EQ(p->activationMin, c.lo) << "activation " << c.act;
    EXPECT_EQ(p->activationMax, c.hi) << "activation " << c.act;
  }
  // A quant8 layer is not wide.
  auto q8 = makeConvQuantParams(quant(kS8, 0.5f, 0), quant(kS8, 0.25f, 0), &bias,
                                quant(kS8, 1.0f, 0), 0, 1);
  ASSERT_TRUE(q8.ok()) << q8.error();
  EXPECT_FALSE(q8->wide);
}

TEST(ConvParams16x8, Requantize64RoundsOnceAndClampsToInt16) {
  // M_real = 0.25 (M = 2^30, shift -1): reduced multiplier 2^14, total shift 16, so
  // y = floor((acc * 2^14 + 2^15) / 2^16) = floor(acc / 4 + 1/2): ties toward +infinity.
  const Shape in = quant(kQ16, 1.0f, 0), filter = quant(kQ8Symm, 0.5f, 0);
  const Shape bias = quant(kI32, 0.5f, 0), out = quant(kQ16, 2.0f, 0);
  auto p = makeConvQuantParams(in, filter, &bias, out, 0, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->multiplier(0).shift, -1);
  EXPECT_EQ(p->requantize64(10, 0), 3);    // 2.5 -> 3
  EXPECT_EQ(p->requantize64(-10, 0), -2);  // -2.5 -> -2 (quant8's RDBPOT would give -3)
  EXPECT_EQ(p->requantize64(-5, 0), -1);   // -1.25 -> -1 (quant8's double rounding: -1)
  EXPECT_EQ(p->requantize64(-6, 0), -1);   // -1.5 -> -1 (quant8's double rounding: -2)
  // Sums beyond int32 are exact: (2^32 + 8) / 4 = 2^30 + 2 before the clamp, and a sum
  // that wraps in int32 (2^31 + 4 -> -2^31 + 4) still gives the positive result.
  EXPECT_EQ(p->requantize64((int64_t{1} << 32) + 8, 0), 32767);
  EXPECT_EQ(p->requantize64((int64_t{1} << 31) + 4, 0), 32767);
  EXPECT_EQ(p->requantize64(-(int64_t{1} << 31) - 4, 0), -32768);
  // Only the scaled result is narrowed: its low 32 bits are kept (TFLite's int64 -> int32
  // conversion), so 2^33 / 4 = 2^31 reads as INT32_MIN and clamps low. Only a result of
  // 2^31 or more output steps, 2^16 times the int16 range, can wrap.
  EXPECT_EQ(p->requantize64(int64_t{1} << 33, 0), -32768);
  EXPECT_EQ(p->requantize64(131068, 0), 32767);  // 32767
  EXPECT_EQ(p->requantize64(131072, 0), 32767);  // 32768 clamps
  // The multiplier is reduced to Q15 before the product: 0.3 = 0.6 * 2^-1, M = 1288490189,
  // reduced (M + 2^15) >> 16 = 19661, so 1000 * 0.3 -> floor((1000 * 19661 + 2^15) / 2^16)
  // = 300 and 100000 * 0.3 -> 30000 (19661 / 2^16 = 0.300003...: 30000.3 rounds to 30000).
  const Shape out3 = quant(kQ16, 0.5f / 0.3f, 0);
  auto q = makeConvQuantParams(in, filter, &bias, out3, 0, 1);
  ASSERT_TRUE(q.ok()) << q.error();
  EXPECT_EQ(quant::reducedMultiplier(q->multiplier(0).multiplier), 19661);
  EXPECT_EQ(q->requantize64(1000, 0), 300);
  EXPECT_EQ(q->requantize64(100000, 0), 30000);
}

TEST(ConvParams16x8, PerChannelMultipliers) {
  const Shape in = quant(kQ16, 0.5f, 0), out = quant(kQ16, 1.0f, 0);
  const Shape filter = perChannel({0.5f, 0.25f, 3.0f}, 0);
  const Shape bias = quant(kI32, 0.0f, 0);  // NNAPI ignores per-channel bias scales
  auto p = makeConvQuantParams(in, filter, &bias, out, 0, 3);
  ASSERT_TRUE(p.ok()) << p.error();
  ASSERT_EQ(p->multipliers.size(), 3u);
  EXPECT_EQ(p->multiplier(0).shift, -1);  // 0.25
  EXPECT_EQ(p->multiplier(1).shift, -2);  // 0.125
  EXPECT_EQ(p->multiplier(2).shift, 1);   // 1.5 = 0.75 * 2^1
  EXPECT_EQ(p->multiplier(2).multiplier, 3 << 29);
  EXPECT_EQ(p->requantize64(100, 2), 150);
  EXPECT_EQ(p->requantize64(100, 1), 13);  // 12.5 -> 13
}

TEST(ConvParams16x8, ZeroPointsMustBeZero) {
  const Shape filter = quant(kQ8Symm, 0.5f, 0), bias = quant(kI32, 0.25f, 0);
  const Shape in = quant(kQ16, 0.5f, 0), out = quant(kQ16, 1.0f, 0);
  EXPECT_TRUE(makeConvQuantParams(in, filter, &bias, out, 0, 1).ok());
  struct Case {
    Shape in, filter, bias, out;
    const char* what;
  };
  const Case cases[] = {
      {quant(kQ16, 0.5f, 3), filter, bias, out, "input zero point 3"},
      {in, quant(kQ8Symm, 0.5f, -1), bias, out, "filter zero point -1"},
      {in, filter, quant(kI32, 0.25f, 7), out, "bias zero point 7"},
      {in, filter, bias, quant(kQ16, 1.0f, 5), "output zero point 5"},
  };
  for (const Case& c : cases) {
    auto p = makeConvQuantParams(c.in, c.filter, &c.bias, c.out, 0, 1);
    ASSERT_FALSE(p.ok()) << c.what;
    EXPECT_NE(p.error().find(c.what), std::string::npos) << p.error();
    EXPECT_NE(p.error().find("16x8"), std::string::npos) << p.error();
  }
}

TEST(ConvParams16x8, FilterAndOutputTypes) {
  const Shape in = quant(kQ16, 0.5f, 0), bias = quant(kI32, 0.25f, 0);
  auto u8 = makeConvQuantParams(in, quant(kU8, 0.5f, 0), &bias, quant(kQ16, 1.0f, 0), 0, 1);
  ASSERT_FALSE(u8.ok());
  EXPECT_NE(u8.error().find("filter type TENSOR_QUANT8_ASYMM"), std::string::npos) << u8.error();
  auto o8 = makeConvQuantParams(in, quant(kQ8Symm, 0.5f, 0), &bias, quant(kS8, 1.0f, 0), 0, 1);
  ASSERT_FALSE(o8.ok());
  EXPECT_NE(o8.error().find("output type TENSOR_QUANT8_ASYMM_SIGNED"), std::string::npos)
      << o8.error();
}

TEST(ConvParams16x8, BiasScaleMustMatchInputTimesFilter) {
  const Shape in = quant(kQ16, 0.5f, 0), filter = quant(kQ8Symm, 0.5f, 0);
  const Shape out = quant(kQ16, 1.0f, 0), bad = quant(kI32, 0.3f, 0);
  auto p = makeConvQuantParams(in, filter, &bad, out, 0, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("bias scale"), std::string::npos) << p.error();
}

TEST(ConvParams16x8, ShiftOutsideTheInt64RequantRangeIsRejected) {
  const Shape in = quant(kQ16, 1.0f, 0), filter = quant(kQ8Symm, 1.0f, 0);
  const Shape bias = quant(kI32, 1.0f, 0);
  // M_real = 2^13 * 1.5: shift 14, the largest the int64 requantization takes.
  auto edge = makeConvQuantParams(in, filter, &bias, quant(kQ16, 1.0f / 12288, 0), 0, 1);
  ASSERT_TRUE(edge.ok()) << edge.error();
  EXPECT_EQ(edge->multiplier(0).shift, kWideMaxShift);
  EXPECT_EQ(edge->requantize64(1, 0), 12288);
  // M_real = 2^14: shift 15 (quant8 would accept it, up to 30).
  auto p = makeConvQuantParams(in, filter, &bias, quant(kQ16, 1.0f / 16384, 0), 0, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().find("shift 15, outside [-31, 14]"), std::string::npos) << p.error();
  // Per-channel: the message names the channel.
  auto pc =
      makeConvQuantParams(in, perChannel({1.0f, 65536.0f}, 0), &bias, quant(kQ16, 1.0f, 0), 0, 2);
  ASSERT_FALSE(pc.ok());
  EXPECT_NE(pc.error().find("of channel 1 needs shift 17"), std::string::npos) << pc.error();
}

}  // namespace
}  // namespace nncosim::ops::conv
