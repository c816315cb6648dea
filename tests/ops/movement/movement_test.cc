// Movement operations: the quantized arithmetic that must match NNAPI's CPU path bit for
// bit, layouts, unknown output shapes, and bad values that must give errors (never
// out-of-bounds accesses).
#include <gtest/gtest.h>

#include <limits>

#include "tests/ops/movement/movement_test_util.h"

namespace nncosim::ops::movement_test {
namespace {

using F = std::vector<float>;
using I = std::vector<int32_t>;
using U8 = std::vector<uint8_t>;
using S8 = std::vector<int8_t>;

constexpr auto kF32 = OperandType::TENSOR_FLOAT32;
constexpr auto kI32 = OperandType::TENSOR_INT32;
constexpr auto kQ8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto kQ8S = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

TEST(MovementReshape, InfersMinusOneAndUnknownOutputDims) {
  OpModel m;
  m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6}).tensorI32({3, -1}).output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::RESHAPE, &out), "");
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(valuesOf<float>(out[0]), (F{1, 2, 3, 4, 5, 6}));
}

TEST(MovementReshape, RejectsBadTargets) {
  for (const I& target : {I{-1, -1}, I{4, 2}, I{-2, 3}, I{0, -1}}) {
    OpModel m;
    m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6}).tensorI32(target).output(kF32, {0, 0});
    std::vector<hal::TensorValue> out;
    EXPECT_NE(m.run(OperationType::RESHAPE, &out), "") << target[0] << "," << target[1];
  }
}

TEST(MovementGather, OutOfRangeIndexIsAnError) {
  for (int32_t bad : {3, -1, 1 << 30}) {
    OpModel m;
    m.input(kF32, {3, 2}, F{1, 2, 3, 4, 5, 6})
        .scalarI32(0)
        .input(kI32, {2}, I{0, bad})
        .output(kF32, {2, 2});
    std::vector<hal::TensorValue> out;
    EXPECT_NE(m.run(OperationType::GATHER, &out).find("out of range"), std::string::npos);
  }
}

TEST(MovementGather, HigherRankIndicesOnInnerAxis) {
  OpModel m;
  m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6})
      .scalarI32(-1)
      .input(kI32, {2, 2}, I{2, 0, 1, 1})
      .output(kF32, {0, 0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::GATHER, &out), "");
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{2, 2, 2}));
  EXPECT_EQ(valuesOf<float>(out[0]), (F{3, 1, 2, 2, 6, 4, 5, 5}));
}

TEST(MovementEmbeddingLookup, OutOfRangeIndexIsAnError) {
  OpModel m;
  m.input(kI32, {2}, I{1, 2}).input(kF32, {2, 2}, F{1, 2, 3, 4}).output(kF32, {2, 2});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::EMBEDDING_LOOKUP, &out), "");
}

TEST(MovementHashtableLookup, MissGivesZerosAndNoHit) {
  OpModel m;
  m.input(kI32, {3}, I{20, 5, 10})
      .input(kI32, {2}, I{10, 20})
      .input(kF32, {2, 2}, F{1, 2, 3, 4})
      .output(kF32, {3, 2})
      .output(kQ8, {3}, 1.0f, 0);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::HASHTABLE_LOOKUP, &out), "");
  EXPECT_EQ(valuesOf<float>(out[0]), (F{3, 4, 0, 0, 1, 2}));
  EXPECT_EQ(valuesOf<uint8_t>(out[1]), (U8{1, 0, 1}));
}

TEST(MovementStridedSlice, NegativeStrideAndMasks) {
  OpModel m;
  m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6})
      .tensorI32({0, -1})
      .tensorI32({2, 0})
      .tensorI32({1, -1})
      .scalarI32(0)
      .scalarI32(2)  // end_mask on dimension 1: run to the front
      .scalarI32(0)
      .output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::STRIDED_SLICE, &out), "");
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(valuesOf<float>(out[0]), (F{3, 2, 1, 6, 5, 4}));
}

TEST(MovementStridedSlice, ShrinkNeedsASliceOfOne) {
  OpModel m;
  m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6})
      .tensorI32({0, 0})
      .tensorI32({2, 3})
      .tensorI32({1, 1})
      .scalarI32(0)
      .scalarI32(0)
      .scalarI32(1)
      .output(kF32, {0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::STRIDED_SLICE, &out), "");
}

TEST(MovementSlice, BeyondTheEndIsAnError) {
  OpModel m;
  m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6})
      .tensorI32({1, 2})
      .tensorI32({1, 2})
      .output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::SLICE, &out), "");
}

TEST(MovementSlice, MinusOneTakesTheRest) {
  OpModel m;
  m.input(kI32, {2, 3}, I{1, 2, 3, 4, 5, 6})
      .tensorI32({1, 1})
      .tensorI32({-1, -1})
      .output(kI32, {0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::SLICE, &out), "");
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (I{5, 6}));
}

// Differing input scales requantize in float with round-half-away, as NNAPI does.
TEST(MovementConcatenation, RequantizesUint8Inputs) {
  OpModel m;
  m.input(kQ8, {1, 4}, U8{1, 3, 5, 255}, 0.5f, 0)
      .input(kQ8, {1, 1}, U8{7}, 1.0f, 2)
      .scalarI32(1)
      .output(kQ8, {1, 5}, 1.0f, 2);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::CONCATENATION, &out), "");
  // 0.5 -> 1 (+2), 1.5 -> 2, 2.5 -> 3, 127.5 -> 128; the second input is copied.
  EXPECT_EQ(valuesOf<uint8_t>(out[0]), (U8{3, 4, 5, 130, 7}));
}

TEST(MovementConcatenation, RequantizesInt8ThroughUint8) {
  OpModel m;
  m.input(kQ8S, {2}, S8{-128, 127}, 0.5f, -10)
      .input(kQ8S, {1}, S8{-5}, 0.25f, 0)
      .scalarI32(0)
      .output(kQ8S, {3}, 1.0f, 0);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::CONCATENATION, &out), "");
  // (-128 + 10) * 0.5 = -59, (127 + 10) * 0.5 = 68.5 -> 69, -5 * 0.25 = -1.25 -> -1.
  EXPECT_EQ(valuesOf<int8_t>(out[0]), (S8{-59, 69, -1}));
}

TEST(MovementConcatenation, RankAboveFourIsRejected) {
  OpModel m;
  m.input(kF32, {1, 1, 1, 1, 2}, F{1, 2})
      .input(kF32, {1, 1, 1, 1, 2}, F{3, 4})
      .scalarI32(4)
      .output(kF32, {1, 1, 1, 1, 4});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::CONCATENATION, &out), "");
}

TEST(MovementPad, QuantizedPadsWithTheZeroPoint) {
  OpModel m;
  m.input(kQ8, {1, 2}, U8{7, 8}, 0.5f, 3)
      .constant(kI32, {2, 2}, I{0, 0, 1, 2})
      .output(kQ8, {1, 5}, 0.5f, 3);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::PAD, &out), "");
  EXPECT_EQ(valuesOf<uint8_t>(out[0]), (U8{3, 7, 8, 3, 3}));
}

TEST(MovementPad, NegativePaddingIsAnError) {
  OpModel m;
  m.input(kF32, {2}, F{1, 2}).constant(kI32, {1, 2}, I{-1, 0}).output(kF32, {0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::PAD, &out), "");
}

TEST(MovementPadV2, Int8PadValue) {
  OpModel m;
  m.input(kQ8S, {2}, S8{1, 2}, 1.0f, 0)
      .constant(kI32, {1, 2}, I{1, 1})
      .scalarI32(-7)
      .output(kQ8S, {4}, 1.0f, 0);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::PAD_V2, &out), "");
  EXPECT_EQ(valuesOf<int8_t>(out[0]), (S8{-7, 1, 2, -7}));
}

TEST(MovementMirrorPad, ReflectAndSymmetric) {
  for (int32_t mode : {0, 1}) {
    OpModel m;
    m.input(kI32, {3}, I{1, 2, 3})
        .constant(kI32, {1, 2}, I{1, 2})
        .scalarI32(mode)
        .output(kI32, {0});
    std::vector<hal::TensorValue> out;
    ASSERT_EQ(m.run(OperationType::MIRROR_PAD, &out), "");
    EXPECT_EQ(valuesOf<int32_t>(out[0]), mode == 0 ? (I{2, 1, 2, 3, 2, 1}) : (I{1, 1, 2, 3, 3, 2}));
  }
}

TEST(MovementMirrorPad, ReflectPaddingMustBeBelowTheSize) {
  OpModel m;
  m.input(kI32, {3}, I{1, 2, 3}).constant(kI32, {1, 2}, I{0, 3}).scalarI32(0).output(kI32, {0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::MIRROR_PAD, &out), "");
}

TEST(MovementSpaceToBatch, QuantizedPadsWithTheZeroPoint) {
  OpModel m;
  m.input(kQ8, {1, 1, 1, 1}, U8{9}, 1.0f, 128)
      .tensorI32({1, 2})
      .constant(kI32, {2, 2}, I{0, 0, 1, 0})
      .output(kQ8, {0, 0, 0, 0}, 1.0f, 128);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::SPACE_TO_BATCH_ND, &out), "");
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{2, 1, 1, 1}));
  EXPECT_EQ(valuesOf<uint8_t>(out[0]), (U8{128, 9}));
}

// NCHW gives the NHWC result transposed.
TEST(MovementDepthToSpace, NchwMatchesNhwc) {
  const F nhwc = {1, 2, 3, 4, 5, 6, 7, 8};  // [1, 1, 2, 4]
  OpModel a;
  a.input(kF32, {1, 1, 2, 4}, nhwc).scalarI32(2).output(kF32, {0, 0, 0, 0});
  std::vector<hal::TensorValue> outA;
  ASSERT_EQ(a.run(OperationType::DEPTH_TO_SPACE, &outA), "");
  EXPECT_EQ(outA[0].dimensions, (std::vector<uint32_t>{1, 2, 4, 1}));
  EXPECT_EQ(valuesOf<float>(outA[0]), (F{1, 2, 5, 6, 3, 4, 7, 8}));
  const F nchw = {1, 5, 2, 6, 3, 7, 4, 8};  // the same tensor as [1, 4, 1, 2]
  OpModel b;
  b.input(kF32, {1, 4, 1, 2}, nchw).scalarI32(2).scalarBool(true).output(kF32, {0, 0, 0, 0});
  std::vector<hal::TensorValue> outB;
  ASSERT_EQ(b.run(OperationType::DEPTH_TO_SPACE, &outB), "");
  EXPECT_EQ(outB[0].dimensions, (std::vector<uint32_t>{1, 1, 2, 4}));
  EXPECT_EQ(valuesOf<float>(outB[0]), (F{1, 2, 5, 6, 3, 4, 7, 8}));
}

TEST(MovementDepthToSpace, HugeBlockIsAnError) {
  OpModel m;
  m.input(kF32, {1, 1, 1, 1}, F{1}).scalarI32(65536).output(kF32, {0, 0, 0, 0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::DEPTH_TO_SPACE, &out), "");
}

// uint8 goes through float with +0.5 before truncation (plain truncation would give 0).
TEST(MovementResizeBilinear, Uint8RoundsHalfUp) {
  OpModel m;
  m.input(kQ8, {1, 1, 2, 1}, U8{0, 1}, 1.0f, 0)
      .scalarI32(3)
      .scalarI32(1)
      .output(kQ8, {1, 1, 3, 1}, 1.0f, 0);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::RESIZE_BILINEAR, &out), "");
  EXPECT_EQ(valuesOf<uint8_t>(out[0]), (U8{0, 1, 1}));
}

// int8 uses the 10-bit fixed-point interpolation: weights 341/683 of 1024.
TEST(MovementResizeBilinear, Int8FixedPoint) {
  OpModel m;
  m.input(kQ8S, {1, 1, 2, 1}, S8{-128, 127}, 1.0f, 0)
      .scalarI32(3)
      .scalarI32(1)
      .output(kQ8S, {1, 1, 3, 1}, 1.0f, 0);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::RESIZE_BILINEAR, &out), "");
  EXPECT_EQ(valuesOf<int8_t>(out[0]), (S8{-128, 42, 127}));
}

TEST(MovementResize, BadScaleIsAnError) {
  for (float scale : {0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN(), 1e30f}) {
    OpModel m;
    m.input(kF32, {1, 2, 2, 1}, F{1, 2, 3, 4})
        .scalarF32(scale)
        .scalarF32(scale)
        .scalarBool(false)
        .output(kF32, {0, 0, 0, 0});
    std::vector<hal::TensorValue> out;
    EXPECT_NE(m.run(OperationType::RESIZE_NEAREST_NEIGHBOR, &out), "") << scale;
  }
}

TEST(MovementResizeNearestNeighbor, HalfPixelCenters) {
  OpModel m;
  m.input(kF32, {1, 1, 3, 1}, F{1, 2, 3})
      .scalarI32(2)
      .scalarI32(1)
      .scalarBool(false)
      .scalarBool(false)
      .scalarBool(true)
      .output(kF32, {1, 1, 2, 1});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::RESIZE_NEAREST_NEIGHBOR, &out), "");
  EXPECT_EQ(valuesOf<float>(out[0]), (F{1, 3}));  // (x + 0.5) * 1.5 = 0.75, 2.25
}

// NNAPI's quantized MEAN divides the int32 sum in C++ (toward zero).
TEST(MovementMean, Int8TruncatesTowardZero) {
  OpModel m;
  m.input(kQ8S, {2}, S8{-3, -4}, 1.0f, 0).tensorI32({0}).scalarI32(0).output(kQ8S, {1}, 1.0f, 0);
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::MEAN, &out), "");
  EXPECT_EQ(valuesOf<int8_t>(out[0]), (S8{-3}));
}

TEST(MovementReduce, DuplicateAndNegativeAxesKeepDims) {
  OpModel m;
  m.input(kF32, {2, 2}, F{1, 2, 3, 4}).tensorI32({1, -1}).scalarBool(true).output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::REDUCE_SUM, &out), "");
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(valuesOf<float>(out[0]), (F{3, 7}));
}

TEST(MovementReduce, AxisOutOfRangeIsAnError) {
  OpModel m;
  m.input(kF32, {2, 2}, F{1, 2, 3, 4}).tensorI32({2}).scalarBool(false).output(kF32, {0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::REDUCE_MAX, &out), "");
}

TEST(MovementTopK, TiesListTheLargerIndexFirst) {
  OpModel m;
  m.input(kI32, {1, 4}, I{5, 7, 5, 1}).scalarI32(3).output(kI32, {1, 3}).output(kI32, {1, 3});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::TOPK_V2, &out), "");
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (I{7, 5, 5}));
  EXPECT_EQ(valuesOf<int32_t>(out[1]), (I{1, 2, 0}));
}

TEST(MovementArgMax, TiesGiveTheFirstIndex) {
  OpModel m;
  m.input(kQ8, {2, 3}, U8{4, 9, 9, 1, 1, 0}, 1.0f, 0).scalarI32(1).output(kI32, {2});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::ARGMAX, &out), "");
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (I{1, 0}));
}

TEST(MovementTranspose, RepeatedPermutationIsAnError) {
  OpModel m;
  m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6}).tensorI32({0, 0}).output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::TRANSPOSE, &out), "");
}

TEST(MovementTranspose, OmittedPermReverses) {
  OpModel m;
  m.input(kF32, {2, 3}, F{1, 2, 3, 4, 5, 6}).omitted(kI32).output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::TRANSPOSE, &out), "");
  EXPECT_EQ(valuesOf<float>(out[0]), (F{1, 4, 2, 5, 3, 6}));
}

TEST(MovementSqueeze, NonUnitDimensionIsAnError) {
  OpModel m;
  m.input(kF32, {1, 2}, F{1, 2}).tensorI32({1}).output(kF32, {0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::SQUEEZE, &out), "");
}

TEST(MovementSplit, OutputCountMustMatch) {
  OpModel m;
  m.input(kF32, {4}, F{1, 2, 3, 4}).scalarI32(0).scalarI32(3).output(kF32, {0}).output(kF32, {0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::SPLIT, &out), "");
}

TEST(MovementTile, RepeatsEveryDimension) {
  OpModel m;
  m.input(kF32, {2, 1}, F{1, 2}).tensorI32({2, 3}).output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::TILE, &out), "");
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{4, 3}));
  EXPECT_EQ(valuesOf<float>(out[0]), (F{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

TEST(MovementChannelShuffle, Groups) {
  OpModel m;
  m.input(kF32, {1, 6}, F{0, 1, 2, 3, 4, 5}).scalarI32(2).scalarI32(-1).output(kF32, {1, 6});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::CHANNEL_SHUFFLE, &out), "");
  EXPECT_EQ(valuesOf<float>(out[0]), (F{0, 3, 1, 4, 2, 5}));
}

TEST(MovementPack, StacksOnAMiddleAxis) {
  OpModel m;
  m.scalarI32(1).input(kI32, {2}, I{1, 2}).input(kI32, {2}, I{3, 4}).output(kI32, {0, 0});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::PACK, &out), "");
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (I{1, 3, 2, 4}));
}

TEST(MovementReverse, ReversesOneAxis) {
  OpModel m;
  m.input(kI32, {2, 3}, I{1, 2, 3, 4, 5, 6}).tensorI32({1}).output(kI32, {2, 3});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::REVERSE, &out), "");
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (I{3, 2, 1, 6, 5, 4}));
}

TEST(MovementFill, NegativeDimensionIsAnError) {
  OpModel m;
  m.input(kI32, {2}, I{2, -1}).scalarF32(1.0f).output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::FILL, &out), "");
}

TEST(MovementExpandDims, OmittedAxisIsRejectedNotRead) {
  OpModel m;
  m.input(kF32, {2}, F{1, 2}).omitted(OperandType::INT32).output(kF32, {0, 0});
  std::vector<hal::TensorValue> out;
  EXPECT_NE(m.run(OperationType::EXPAND_DIMS, &out), "");
}

TEST(MovementRank, ScalarOutput) {
  OpModel m;
  m.input(kQ8, {1, 2, 3}, U8{1, 2, 3, 4, 5, 6}, 1.0f, 0).output(OperandType::INT32, {});
  std::vector<hal::TensorValue> out;
  ASSERT_EQ(m.run(OperationType::RANK, &out), "");
  EXPECT_EQ(valuesOf<int32_t>(out[0]), (I{3}));
}

}  // namespace
}  // namespace nncosim::ops::movement_test
