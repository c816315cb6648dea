#include "hal/half.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace nncosim::hal {
namespace {

TEST(HalfTest, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = halfBitsToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(halfBitsToFloat(floatToHalfBits(f)))) << b;
      continue;
    }
    EXPECT_EQ(floatToHalfBits(f), b) << "bits " << b << " value " << f;
  }
}

TEST(HalfTest, RoundsToNearestEven) {
  // 1 + 2^-11 lies exactly between 1 and the next half (1 + 2^-10): ties to even (1).
  EXPECT_EQ(floatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 lies between 1+2^-10 (odd) and 1+2^-9 (even): rounds up to even.
  EXPECT_EQ(floatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalfBits(65520.0f), 0x7c00);               // rounds to infinity
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);  // tie to even zero
  EXPECT_EQ(floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalfBits(std::numeric_limits<float>::infinity()), 0x7c00);
}

}  // namespace
}  // namespace nncosim::hal
