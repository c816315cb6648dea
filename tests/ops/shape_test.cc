#include "ops/shape.h"

#include <gtest/gtest.h>

namespace nncosim::ops {
namespace {

TEST(ShapeTest, ElementCountSaturatesInsteadOfWrapping) {
  Shape s;
  s.type = hal::OperandType::TENSOR_FLOAT32;
  s.dimensions = {65536, 65536, 65536, 65536};  // 2^64 would wrap to 0
  EXPECT_EQ(s.elements(), uint64_t{1} << 40);
  EXPECT_GT(s.bytes(), uint64_t{1} << 31);
  s.dimensions = {2, 3, 4};
  EXPECT_EQ(s.elements(), 24u);
  EXPECT_EQ(s.bytes(), 96u);
  s.dimensions = {};
  EXPECT_EQ(s.elements(), 1u);
}

}  // namespace
}  // namespace nncosim::ops
