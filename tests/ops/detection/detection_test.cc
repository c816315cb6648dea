// Detection family: the integer inverse square root of L2_NORMALIZATION, the LSH
// fingerprint, NMS selection sizes, the float->quantized rounding of the float-computed
// variants, and bad values that must give errors instead of out-of-bounds accesses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "hal/model_builder.h"
#include "ops/detection/detection_util.h"
#include "ops/detection/fingerprint64.h"
#include "ops/executor.h"

namespace nncosim::ops {
namespace {

using hal::OperandType;
using hal::OperationType;

template <typename T>
std::vector<T> valuesOf(const hal::TensorValue& v) {
  std::vector<T> out(v.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.bytes.data(), v.bytes.size());
  return out;
}

// Runs a model whose inputs are all constants.
Status run(hal::ModelBuilder& b, std::vector<hal::TensorValue>* outs) {
  hal::Model m = b.build();
  NNC_TRY(validateOperations(m));
  Executor ex(m);
  return ex.run({}, *outs);
}

// Five Newton-Raphson steps from 1.0: about 20 bits of precision.
TEST(InvSqrtQuantizedMultiplier, MatchesRealInverseSquareRoot) {
  for (int32_t x : {2, 3, 4, 17, 100, 1000, 65025, 1 << 20, (1 << 29) + 12345, 2147483647}) {
    int32_t mult;
    int shift;
    detection::invSqrtQuantizedMultiplier(x, &mult, &shift);
    EXPECT_LE(shift, 0);
    const double value = mult * std::ldexp(1.0, shift - 31);
    EXPECT_NEAR(value * std::sqrt(static_cast<double>(x)), 1.0, 1e-5) << "x = " << x;
  }
}

TEST(InvSqrtQuantizedMultiplier, ZeroAndOneAreOne) {
  for (int32_t x : {0, 1}) {
    int32_t mult;
    int shift;
    detection::invSqrtQuantizedMultiplier(x, &mult, &shift);
    EXPECT_EQ(mult, 2147483647);
    EXPECT_EQ(shift, 0);
  }
}

TEST(L2Normalization, Quant8UsesScale128) {
  hal::ModelBuilder b;
  // zeroPoint 128: values 3 and 4 -> 0.6 and 0.8 -> 128 + 76.8 / 102.4.
  const uint32_t in = b.addConstant<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {1, 2},
                                             std::vector<uint8_t>{131, 132}, 0.1f, 128);
  const uint32_t out = b.addOutput(OperandType::TENSOR_QUANT8_ASYMM, {1, 2}, 1.0f / 128, 128);
  b.addOperation(OperationType::L2_NORMALIZATION, {in}, {out});
  std::vector<hal::TensorValue> outs;
  ASSERT_TRUE(run(b, &outs).ok());
  EXPECT_EQ(valuesOf<uint8_t>(outs[0]), (std::vector<uint8_t>{205, 230}));
}

TEST(L2Normalization, RejectsWrongOutputQuantization) {
  hal::ModelBuilder b;
  const uint32_t in = b.addConstant<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {1, 2},
                                             std::vector<uint8_t>{131, 132}, 0.1f, 128);
  const uint32_t out = b.addOutput(OperandType::TENSOR_QUANT8_ASYMM, {1, 2}, 0.5f, 128);
  b.addOperation(OperationType::L2_NORMALIZATION, {in}, {out});
  std::vector<hal::TensorValue> outs;
  const Status st = run(b, &outs);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("1/128"), std::string::npos) << st.error();
}

TEST(Fingerprint64, EveryLengthBranchIsDeterministicAndDistinct) {
  std::vector<uint8_t> data(200);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<uint64_t> seen;
  for (size_t len : {0, 1, 3, 4, 7, 8, 16, 17, 32, 33, 64, 65, 128, 200}) {
    const uint64_t h = detection::fingerprint64(data.data(), len);
    EXPECT_EQ(h, detection::fingerprint64(data.data(), len));
    for (uint64_t s : seen) EXPECT_NE(h, s) << "length " << len;
    seen.push_back(h);
  }
}

// The NNAPI vector lsh_projection_weights_as_inputs: dense projection of int32 rows.
TEST(LshProjection, DenseMatchesNnapiVector) {
  hal::ModelBuilder b;
  const uint32_t hash = b.addConstant<float>(
      OperandType::TENSOR_FLOAT32, {4, 2},
      std::vector<float>{0.123f, 0.456f, -0.321f, -0.654f, 1.234f, 5.678f, -4.321f, -8.765f});
  const uint32_t input =
      b.addConstant<int32_t>(OperandType::TENSOR_INT32, {3, 2},
                             std::vector<int32_t>{12345, 54321, 67890, 9876, -12345678, -87654321});
  const uint32_t weight = b.addConstant<float>(OperandType::TENSOR_FLOAT32, {3},
                                               std::vector<float>{0.12f, 0.34f, 0.56f});
  const uint32_t type = b.addInt32(2);
  const uint32_t out = b.addOutput(OperandType::TENSOR_INT32, {8});
  b.addOperation(OperationType::LSH_PROJECTION, {hash, input, weight, type}, {out});
  std::vector<hal::TensorValue> outs;
  ASSERT_TRUE(run(b, &outs).ok());
  EXPECT_EQ(valuesOf<int32_t>(outs[0]), (std::vector<int32_t>{1, 1, 1, 0, 1, 1, 1, 0}));
}

// BOX_WITH_NMS_LIMIT operands: 2 boxes x 2 classes, one batch.
struct NmsModel {
  hal::ModelBuilder b;
  uint32_t outs[4];
  NmsModel(std::vector<float> scores, std::vector<float> boxes, float scoreThreshold) {
    const uint32_t s = b.addConstant<float>(OperandType::TENSOR_FLOAT32, {2, 2}, scores);
    const uint32_t r = b.addConstant<float>(OperandType::TENSOR_FLOAT32, {2, 8}, boxes);
    const uint32_t batch =
        b.addConstant<int32_t>(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{0, 0});
    outs[0] = b.addOutput(OperandType::TENSOR_FLOAT32, {0});
    outs[1] = b.addOutput(OperandType::TENSOR_FLOAT32, {0, 4});
    outs[2] = b.addOutput(OperandType::TENSOR_INT32, {0});
    outs[3] = b.addOutput(OperandType::TENSOR_INT32, {0});
    b.addOperation(OperationType::BOX_WITH_NMS_LIMIT,
                   {s, r, batch, b.addFloat32(scoreThreshold), b.addInt32(-1), b.addInt32(0),
                    b.addFloat32(0.5f), b.addFloat32(0.5f), b.addFloat32(0.1f)},
                   {outs[0], outs[1], outs[2], outs[3]});
  }
};

TEST(BoxWithNmsLimit, HardNmsDropsOverlappingBox) {
  // Class 1: two nearly identical boxes; only the better one survives.
  NmsModel m({0.0f, 0.9f, 0.0f, 0.8f}, {0, 0, 10, 10, 0, 0, 10, 10, 0, 0, 10, 10, 1, 1, 10, 10},
             0.3f);
  std::vector<hal::TensorValue> outs;
  ASSERT_TRUE(run(m.b, &outs).ok());
  EXPECT_EQ(outs[0].dimensions, (std::vector<uint32_t>{1}));
  EXPECT_EQ(valuesOf<float>(outs[0]), (std::vector<float>{0.9f}));
  EXPECT_EQ(valuesOf<float>(outs[1]), (std::vector<float>{0, 0, 10, 10}));
  EXPECT_EQ(valuesOf<int32_t>(outs[2]), (std::vector<int32_t>{1}));
  EXPECT_EQ(valuesOf<int32_t>(outs[3]), (std::vector<int32_t>{0}));
}

TEST(BoxWithNmsLimit, NoBoxAboveThresholdGivesEmptyOutputs) {
  NmsModel m({0.0f, 0.2f, 0.0f, 0.1f}, std::vector<float>(16, 1.0f), 0.5f);
  std::vector<hal::TensorValue> outs;
  ASSERT_TRUE(run(m.b, &outs).ok());
  EXPECT_EQ(outs[0].dimensions, (std::vector<uint32_t>{0}));
  EXPECT_EQ(outs[1].dimensions, (std::vector<uint32_t>{0, 4}));
  EXPECT_TRUE(outs[2].bytes.empty());
}

// ROI_ALIGN / ROI_POOLING with a batch index outside the input: an error, not a read
// outside the feature map.
void roiWithBatch(OperationType type, int32_t batchIndex, Status* st) {
  hal::ModelBuilder b;
  const uint32_t in = b.addConstant<float>(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1},
                                           std::vector<float>{1, 2, 3, 4});
  const uint32_t rois =
      b.addConstant<float>(OperandType::TENSOR_FLOAT32, {1, 4}, std::vector<float>{0, 0, 1, 1});
  const uint32_t batches =
      b.addConstant<int32_t>(OperandType::TENSOR_INT32, {1}, std::vector<int32_t>{batchIndex});
  std::vector<uint32_t> inputs = {
      in, rois, batches, b.addInt32(1), b.addInt32(1), b.addFloat32(1.0f), b.addFloat32(1.0f)};
  if (type == OperationType::ROI_ALIGN) {
    inputs.push_back(b.addInt32(2));
    inputs.push_back(b.addInt32(2));
  }
  inputs.push_back(b.addBool(false));
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1, 1, 1, 1});
  b.addOperation(type, inputs, {out});
  std::vector<hal::TensorValue> outs;
  *st = run(b, &outs);
}

TEST(RoiOperations, BatchIndexOutOfRangeIsAnError) {
  for (OperationType type : {OperationType::ROI_ALIGN, OperationType::ROI_POOLING}) {
    Status st;
    roiWithBatch(type, 0, &st);
    EXPECT_TRUE(st.ok()) << st.error();
    roiWithBatch(type, 1, &st);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().find("batch index 1"), std::string::npos) << st.error();
    roiWithBatch(type, -1, &st);
    EXPECT_FALSE(st.ok());
  }
}

TEST(QuantizeValue, RoundsHalfAwayFromZeroAndSaturates) {
  // NNAPI's float->quantized conversion rounds ties away from zero (std::round).
  EXPECT_EQ(detection::quantizeValue(9.5625f, 0.125f, 0, 0, 65535), 77);
  EXPECT_EQ(detection::quantizeValue(-0.5f, 1.0f, 0, -128, 127), -1);
  EXPECT_EQ(detection::quantizeValue(1e9f, 1.0f, 0, -128, 127), 127);
  EXPECT_EQ(detection::quantizeValue(-1e9f, 1.0f, 0, 0, 255), 0);
  EXPECT_EQ(detection::quantizeValue(std::nanf(""), 1.0f, 0, 0, 255), 0);
}

TEST(GenerateProposals, MalformedAnchorIsAnError) {
  hal::ModelBuilder b;
  // One anchor with x2 < x1 on a 1x1 map.
  const uint32_t scores =
      b.addConstant<float>(OperandType::TENSOR_FLOAT32, {1, 1, 1, 1}, std::vector<float>{0.9f});
  const uint32_t deltas = b.addConstant<float>(OperandType::TENSOR_FLOAT32, {1, 1, 1, 4},
                                               std::vector<float>{0, 0, 0, 0});
  const uint32_t anchors =
      b.addConstant<float>(OperandType::TENSOR_FLOAT32, {1, 4}, std::vector<float>{5, 0, 1, 4});
  const uint32_t info =
      b.addConstant<float>(OperandType::TENSOR_FLOAT32, {1, 2}, std::vector<float>{10, 10});
  const uint32_t o0 = b.addOutput(OperandType::TENSOR_FLOAT32, {0});
  const uint32_t o1 = b.addOutput(OperandType::TENSOR_FLOAT32, {0, 4});
  const uint32_t o2 = b.addOutput(OperandType::TENSOR_INT32, {0});
  b.addOperation(OperationType::GENERATE_PROPOSALS,
                 {scores, deltas, anchors, info, b.addFloat32(1), b.addFloat32(1), b.addInt32(-1),
                  b.addInt32(-1), b.addFloat32(0.5f), b.addFloat32(0), b.addBool(false)},
                 {o0, o1, o2});
  std::vector<hal::TensorValue> outs;
  const Status st = run(b, &outs);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("x2 < x1"), std::string::npos) << st.error();
}

}  // namespace
}  // namespace nncosim::ops
