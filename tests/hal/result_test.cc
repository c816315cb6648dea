#include "hal/result.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace nncosim::hal {
namespace {

enum class Colour { kRed = 1, kBlue = 7 };

Status rankIsFour(size_t rank) {
  NNC_CHECK_EQ(rank, 4, "input 0: rank");
  return Status::Ok();
}

Status atMost(int64_t v, uint32_t limit) {
  NNC_CHECK_LE(v, limit, "value");
  return Status::Ok();
}

TEST(ResultTest, ComparisonChecksPrintBothValues) {
  EXPECT_TRUE(rankIsFour(4).ok());
  const Status st = rankIsFour(3);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error(), "input 0: rank (failed: rank == 4: 3 vs 4)");
}

TEST(ResultTest, ComparisonsAreExactAcrossSignedness) {
  // -1 <= 5u holds (a plain comparison would convert -1 to 4294967295).
  EXPECT_TRUE(atMost(-1, 5).ok());
  EXPECT_TRUE(atMost(5, 5).ok());
  EXPECT_EQ(atMost(6, 5).error(), "value (failed: v <= limit: 6 vs 5)");
  EXPECT_TRUE(detail::checkLt(-1, 0u));
  EXPECT_FALSE(detail::checkEq(-1, 0xFFFFFFFFu));
  EXPECT_TRUE(detail::checkGt(1u, -3));
}

TEST(ResultTest, BytesAndEnumsPrintAsNumbers) {
  auto f = [](uint8_t a, Colour c) -> Status {
    NNC_CHECK_EQ(a, 200, "byte");
    NNC_CHECK_EQ(c, Colour::kRed, "colour");
    return Status::Ok();
  };
  EXPECT_EQ(f(7, Colour::kRed).error(), "byte (failed: a == 200: 7 vs 200)");
  EXPECT_EQ(f(200, Colour::kBlue).error(), "colour (failed: c == Colour::kRed: 7 vs 1)");
}

}  // namespace
}  // namespace nncosim::hal
