#include "ops/mac_count.h"

#include <gtest/gtest.h>

#include "hal/model_builder.h"

namespace nncosim::ops {
namespace {

using hal::OperandType;
using hal::OperationType;

// A 3x3 CONV_2D, [1, 8, 8, 4] -> [1, 8, 8, 6]: 8*8*6 outputs of 3*3*4 MACs each.
hal::Model conv() {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {1, 8, 8, 4});
  const uint32_t w =
      b.addConstant(OperandType::TENSOR_FLOAT32, {6, 3, 3, 4}, std::vector<float>(6 * 9 * 4, 0.5f));
  const uint32_t bias =
      b.addConstant(OperandType::TENSOR_FLOAT32, {6}, std::vector<float>(6, 0.0f));
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1, 8, 8, 6});
  b.addOperation(OperationType::CONV_2D,
                 {in, w, bias, b.addInt32(1), b.addInt32(1), b.addInt32(1), b.addInt32(0)}, {out});
  return b.build();
}

TEST(MacCount, ConvolutionCountsEveryProduct) {
  const hal::Model m = conv();
  EXPECT_EQ(macCount(m, m.main, m.main.operations[0]), uint64_t{8 * 8 * 6} * 3 * 3 * 4);
}

TEST(MacCount, OperationsWithoutACountAndUnknownShapesGiveZero) {
  hal::Model m = conv();
  hal::Operation op = m.main.operations[0];
  op.type = OperationType::ADD;  // no MAC count registered
  EXPECT_EQ(macCount(m, m.main, op), 0u);
  m.main.operands[m.main.operations[0].outputs[0]].dimensions = {1, 0, 8, 6};  // not known
  EXPECT_EQ(macCount(m, m.main, m.main.operations[0]), 0u);
}

TEST(MacCount, OutOfRangeOperandsGiveZeroNotAWildRead) {
  hal::Model m = conv();
  hal::Operation op = m.main.operations[0];
  op.inputs[1] = 999;
  EXPECT_EQ(macCount(m, m.main, op), 0u);
  op = m.main.operations[0];
  op.outputs[0] = 999;
  EXPECT_EQ(macCount(m, m.main, op), 0u);
}

}  // namespace
}  // namespace nncosim::ops
