// The conv family through the executor: known answers for padding, stride, dilation,
// layouts, groups, depth multipliers, transpose convolution, fully connected, batch
// matmul and pooling, plus bad parameters that must give errors (never crashes).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ops/conv/conv_test_util.h"

namespace nncosim::ops::conv_test {
namespace {

constexpr OperandType kF32 = OperandType::TENSOR_FLOAT32;
constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kS8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;
constexpr OperandType kPerChannel = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
constexpr int32_t kSame = 1, kValid = 2;

// CONV_2D, float, implicit padding: 1x3x3x1 input 1..9, 2x2 filter [1 2; 3 4].
std::string conv3x3(OneOp& m, int32_t scheme, int32_t activation, std::vector<uint32_t> outDims) {
  const uint32_t in = m.input<float>(kF32, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const uint32_t f = m.constant<float>(kF32, {1, 2, 2, 1}, {1, 2, 3, 4});
  const uint32_t b = m.constant<float>(kF32, {1}, {0.5f});
  const uint32_t out = m.output(kF32, std::move(outDims));
  m.op(OperationType::CONV_2D, {in, f, b, m.i32(scheme), m.i32(1), m.i32(1), m.i32(activation)},
       {out});
  return m.run();
}

TEST(Conv2D, SamePaddingPadsTheTailOnly) {
  OneOp m;
  ASSERT_EQ(conv3x3(m, kSame, 0, {1, 3, 3, 1}), "");
  const std::vector<float> want = {37, 47, 21, 67, 77, 33, 23, 26, 9};
  const auto got = m.result<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i] + 0.5f) << i;
}

TEST(Conv2D, ValidPaddingAndRelu6AndUnknownOutputDims) {
  OneOp m;
  ASSERT_EQ(conv3x3(m, kValid, 3, {0, 0, 0, 0}), "");
  EXPECT_EQ(m.resultDims(), (std::vector<uint32_t>{1, 2, 2, 1}));
  for (float v : m.result<float>()) EXPECT_FLOAT_EQ(v, 6.0f);
}

TEST(Conv2D, BadPaddingSchemeAndActivationAreRejected) {
  OneOp a;
  EXPECT_NE(conv3x3(a, 0, 0, {1, 3, 3, 1}).find("padding scheme"), std::string::npos);
  OneOp b;
  EXPECT_NE(conv3x3(b, kSame, 7, {1, 3, 3, 1}).find("fused activation"), std::string::npos);
}

// Explicit padding, stride 2 and dilation 2, NHWC vs NCHW over the same data.
std::vector<float> dilatedConv(bool nchw) {
  // NHWC input [1, 5, 6, 2]: value = 100 * c + 10 * y + x.
  std::vector<float> nhwc, nchwData(60);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 6; ++x)
      for (int c = 0; c < 2; ++c) nhwc.push_back(100.0f * c + 10.0f * y + x);
  for (int c = 0; c < 2; ++c)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 6; ++x) nchwData[(c * 5 + y) * 6 + x] = 100.0f * c + 10.0f * y + x;
  std::vector<float> filter(3 * 2 * 2 * 2);
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
  OneOp m;
  const uint32_t in = nchw ? m.input<float>(kF32, {1, 2, 5, 6}, nchwData)
                           : m.input<float>(kF32, {1, 5, 6, 2}, nhwc);
  const uint32_t f = m.constant<float>(kF32, {3, 2, 2, 2}, filter);
  const uint32_t b = m.constant<float>(kF32, {3}, {1, 2, 3});
  const uint32_t out = m.output(kF32, {0, 0, 0, 0});
  // pads l 1, r 0, t 1, b 1; strides w 2, h 1; dilation w 2, h 2
  m.op(OperationType::CONV_2D,
       {in, f, b, m.i32(1), m.i32(0), m.i32(1), m.i32(1), m.i32(2), m.i32(1), m.i32(0),
        m.flag(nchw), m.i32(2), m.i32(2)},
       {out});
  EXPECT_EQ(m.run(), "");
  // out w = (6 - 3 + 2 + 1) / 2 = 3, out h = (5 - 3 + 1 + 2) / 1 = 5
  EXPECT_EQ(m.resultDims(),
            nchw ? (std::vector<uint32_t>{1, 3, 5, 3}) : (std::vector<uint32_t>{1, 5, 3, 3}));
  std::vector<float> r = m.result<float>();
  if (!nchw) return r;
  std::vector<float> back(r.size());  // NCHW -> NHWC
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 3; ++x) back[(y * 3 + x) * 3 + c] = r[(c * 5 + y) * 3 + x];
  return back;
}

TEST(Conv2D, DilationStrideExplicitPaddingAndLayoutsAgree) {
  const std::vector<float> a = dilatedConv(false), b = dilatedConv(true);
  ASSERT_EQ(a.size(), 45u);
  EXPECT_EQ(a, b);
  // Output (0, 0, c): window rows -1, 1 and columns -1, 1 -> only (1, 1) is inside.
  // filter[c, 1, 1, k] * input(1, 1, k) + bias
  const float want0 = (0.25f * (6 % 7) - 0.5f) * 11.0f + (0.25f * (7 % 7) - 0.5f) * 111.0f + 1;
  EXPECT_FLOAT_EQ(a[0], want0);
}

TEST(Conv2D, ShapeErrors) {
  // Filter depth 2 for a 1-channel input.
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const uint32_t f = m.constant<float>(kF32, {1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  const uint32_t b = m.constant<float>(kF32, {1}, {0.0f});
  m.op(OperationType::CONV_2D, {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(0)},
       {m.output(kF32, {1, 2, 2, 1})});
  EXPECT_NE(m.run().find("depth"), std::string::npos);

  // Input smaller than the filter with VALID padding.
  OneOp small;
  const uint32_t in2 = small.input<float>(kF32, {1, 1, 1, 1}, {1.0f});
  const uint32_t f2 = small.constant<float>(kF32, {1, 2, 2, 1}, std::vector<float>(4, 1.0f));
  const uint32_t b2 = small.constant<float>(kF32, {1}, {0.0f});
  small.op(OperationType::CONV_2D,
           {in2, f2, b2, small.i32(kValid), small.i32(1), small.i32(1), small.i32(0)},
           {small.output(kF32, {0, 0, 0, 0})});
  EXPECT_NE(small.run(), "");

  // Padding as large as the filter; zero stride.
  for (int variant = 0; variant < 2; ++variant) {
    OneOp p;
    const uint32_t in3 = p.input<float>(kF32, {1, 3, 3, 1}, std::vector<float>(9, 1.0f));
    const uint32_t f3 = p.constant<float>(kF32, {1, 2, 2, 1}, std::vector<float>(4, 1.0f));
    const uint32_t b3 = p.constant<float>(kF32, {1}, {0.0f});
    const int32_t pad = variant == 0 ? 2 : 0, stride = variant == 0 ? 1 : 0;
    p.op(OperationType::CONV_2D,
         {in3, f3, b3, p.i32(pad), p.i32(0), p.i32(0), p.i32(0), p.i32(stride), p.i32(1), p.i32(0)},
         {p.output(kF32, {0, 0, 0, 0})});
    EXPECT_NE(p.run(), "") << "variant " << variant;
  }

  // Rank-3 input (NNAPI's conv2d_v1_3_invalid_rank).
  OneOp r;
  const uint32_t in4 = r.input<float>(kF32, {1, 3, 3}, std::vector<float>(9, 1.0f));
  const uint32_t f4 = r.constant<float>(kF32, {1, 2, 2, 1}, std::vector<float>(4, 1.0f));
  const uint32_t b4 = r.constant<float>(kF32, {1}, {0.0f});
  r.op(OperationType::CONV_2D, {in4, f4, b4, r.i32(kValid), r.i32(1), r.i32(1), r.i32(0)},
       {r.output(kF32, {0, 0, 0, 0})});
  EXPECT_NE(r.run().find("rank"), std::string::npos);
}

TEST(Conv2D, ExtremeDilationAndPaddingAreRejectedNotWrapped) {
  // Effective filter 2^31, paddings 2^31 - 1: the output width would be 2^31 + 1.
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {1, 2, 2, 1}, {1, 2, 3, 4});
  const uint32_t f = m.constant<float>(kF32, {1, 2, 2, 1}, {1, 1, 1, 1});
  const uint32_t b = m.constant<float>(kF32, {1}, {0.0f});
  const int32_t big = 2147483647;
  m.op(OperationType::CONV_2D,
       {in, f, b, m.i32(big), m.i32(big), m.i32(0), m.i32(0), m.i32(1), m.i32(1), m.i32(0),
        m.flag(false), m.i32(big), m.i32(1)},
       {m.output(kF32, {0, 0, 0, 0})});
  EXPECT_NE(m.run().find("out of range"), std::string::npos);
}

TEST(Conv2D, PerChannelSignedKnownAnswer) {
  OneOp m;
  const uint32_t in = m.input<int8_t>(kS8, {1, 1, 1, 2}, {2, 4}, 0.5f, 0);
  const uint32_t f = m.constant<int8_t>(kPerChannel, {2, 1, 1, 2}, {1, 1, 2, -2});
  m.channelQuant(f, {0.5f, 1.0f}, 0);
  const uint32_t b = m.constant<int32_t>(kI32, {2}, {0, 0});
  const uint32_t out = m.output(kS8, {1, 1, 1, 2}, 1.0f, 0);
  m.op(OperationType::CONV_2D, {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(0)}, {out});
  ASSERT_EQ(m.run(), "");
  // channel 0: 6 * 0.25 = 1.5 -> 2; channel 1: -4 * 0.5 = -2
  EXPECT_EQ(m.result<int8_t>(), (std::vector<int8_t>{2, -2}));
}

TEST(Conv2D, BiasScaleMismatchFailsValidation) {
  OneOp m;
  const uint32_t in = m.input<uint8_t>(kU8, {1, 1, 1, 1}, {1}, 0.5f, 0);
  const uint32_t f = m.constant<uint8_t>(kU8, {1, 1, 1, 1}, {1}, 0.5f, 0);
  const uint32_t b = m.constant<int32_t>(kI32, {1}, {0}, 0.3f, 0);
  m.op(OperationType::CONV_2D, {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(0)},
       {m.output(kU8, {1, 1, 1, 1}, 1.0f, 0)});
  const std::string err = m.run();
  EXPECT_NE(err.find("validate"), std::string::npos) << err;
  EXPECT_NE(err.find("bias scale"), std::string::npos) << err;
}

TEST(DepthwiseConv2D, DepthMultiplier) {
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {1, 1, 1, 2}, {1, 2});
  const uint32_t f = m.constant<float>(kF32, {1, 1, 1, 4}, {1, 2, 3, 4});
  const uint32_t b = m.constant<float>(kF32, {4}, {0, 0, 0, 1});
  m.op(OperationType::DEPTHWISE_CONV_2D,
       {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(2), m.i32(0)},
       {m.output(kF32, {1, 1, 1, 4})});
  ASSERT_EQ(m.run(), "");
  EXPECT_EQ(m.result<float>(), (std::vector<float>{1, 2, 6, 9}));
}

TEST(DepthwiseConv2D, MultiplierMismatchAndFilterDimsAreRejected) {
  for (int variant = 0; variant < 2; ++variant) {
    OneOp m;
    const uint32_t in = m.input<float>(kF32, {1, 1, 1, 2}, {1, 2});
    // variant 0: multiplier 3 for 4 outputs; variant 1: filter dim 0 = 2.
    const uint32_t f = variant == 0 ? m.constant<float>(kF32, {1, 1, 1, 4}, {1, 2, 3, 4})
                                    : m.constant<float>(kF32, {2, 1, 1, 2}, {1, 2, 3, 4});
    const uint32_t b = m.constant<float>(kF32, {variant == 0 ? 4u : 2u},
                                         std::vector<float>(variant == 0 ? 4 : 2, 0.0f));
    m.op(OperationType::DEPTHWISE_CONV_2D,
         {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(variant == 0 ? 3 : 1), m.i32(0)},
         {m.output(kF32, {0, 0, 0, 0})});
    EXPECT_NE(m.run(), "") << "variant " << variant;
  }
}

TEST(DepthwiseConv2D, PerChannelDimensionMustBe3) {
  OneOp m;
  const uint32_t in = m.input<uint8_t>(kU8, {1, 1, 1, 2}, {1, 2}, 0.5f, 0);
  const uint32_t f = m.constant<int8_t>(kPerChannel, {1, 1, 1, 2}, {1, 2});
  m.channelQuant(f, {0.5f}, 0);
  const uint32_t b = m.constant<int32_t>(kI32, {2}, {0, 0});
  m.op(OperationType::DEPTHWISE_CONV_2D,
       {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(1), m.i32(0)},
       {m.output(kU8, {1, 1, 1, 2}, 1.0f, 0)});
  EXPECT_NE(m.run(), "");
}

TEST(GroupedConv2D, TwoGroupsAndBadGroupCount) {
  for (int32_t groups : {2, 3}) {
    OneOp m;
    const uint32_t in = m.input<float>(kF32, {1, 1, 1, 4}, {1, 2, 3, 4});
    const uint32_t f = m.constant<float>(kF32, {2, 1, 1, 2}, {1, 1, 1, -1});
    const uint32_t b = m.constant<float>(kF32, {2}, {0, 0});
    m.op(OperationType::GROUPED_CONV_2D,
         {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(groups), m.i32(0), m.flag(false)},
         {m.output(kF32, {1, 1, 1, 2})});
    const std::string err = m.run();
    if (groups == 2) {
      ASSERT_EQ(err, "");
      EXPECT_EQ(m.result<float>(), (std::vector<float>{3, -1}));
    } else {
      EXPECT_NE(err.find("groups"), std::string::npos) << err;
    }
  }
}

// 2x2 input 1..4, 3x3 filter of ones, stride 2.
std::vector<float> transposeConv(OneOp& m, bool implicit) {
  const uint32_t in = m.input<float>(kF32, {1, 2, 2, 1}, {1, 2, 3, 4});
  const uint32_t f = m.constant<float>(kF32, {1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const uint32_t b = m.constant<float>(kF32, {1}, {0.0f});
  const uint32_t out = m.output(kF32, {0, 0, 0, 0});
  if (implicit) {
    const uint32_t shape = m.constant<int32_t>(kI32, {4}, {1, 4, 4, 1});
    m.op(OperationType::TRANSPOSE_CONV_2D,
         {in, f, b, shape, m.i32(kSame), m.i32(2), m.i32(2), m.i32(0), m.flag(false)}, {out});
  } else {
    m.op(OperationType::TRANSPOSE_CONV_2D,
         {in, f, b, m.i32(0), m.i32(0), m.i32(0), m.i32(0), m.i32(2), m.i32(2), m.i32(0),
          m.flag(false)},
         {out});
  }
  EXPECT_EQ(m.run(), "");
  return m.result<float>();
}

TEST(TransposeConv2D, ExplicitAndImplicitPadding) {
  OneOp e;
  const std::vector<float> full = transposeConv(e, false);
  EXPECT_EQ(e.resultDims(), (std::vector<uint32_t>{1, 5, 5, 1}));
  ASSERT_EQ(full.size(), 25u);
  EXPECT_EQ(full[0], 1);
  EXPECT_EQ(full[2], 3);  // columns 0..2 of input 1 and 0..2 of input 2 overlap
  EXPECT_EQ(full[2 * 5 + 2], 10);
  EXPECT_EQ(full[24], 4);
  // SAME for a 4x4 output: head 0, tail 1 -> the top-left 4x4 of the full result.
  OneOp i;
  const std::vector<float> same = transposeConv(i, true);
  EXPECT_EQ(i.resultDims(), (std::vector<uint32_t>{1, 4, 4, 1}));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) EXPECT_EQ(same[y * 4 + x], full[y * 5 + x]);
}

TEST(TransposeConv2D, OutputShapeTensorMustHaveFourElements) {
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {1, 2, 2, 1}, {1, 2, 3, 4});
  const uint32_t f = m.constant<float>(kF32, {1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const uint32_t b = m.constant<float>(kF32, {1}, {0.0f});
  const uint32_t shape = m.constant<int32_t>(kI32, {3}, {4, 4, 1});
  m.op(OperationType::TRANSPOSE_CONV_2D,
       {in, f, b, shape, m.i32(kSame), m.i32(2), m.i32(2), m.i32(0), m.flag(false)},
       {m.output(kF32, {0, 0, 0, 0})});
  EXPECT_NE(m.run().find("output shape"), std::string::npos);
}

TEST(FullyConnected, QuantizedTiesRoundAwayFromZero) {
  OneOp m;
  // Real multiplier 0.25 (shift -1): the final rounding shift takes ties away from zero.
  const uint32_t in = m.input<uint8_t>(kU8, {1, 2}, {20, 0}, 1.0f, 10);  // (10, -10)
  const uint32_t w = m.constant<uint8_t>(kU8, {2, 2}, {101, 100, 100, 101}, 0.25f, 100);
  const uint32_t b = m.constant<int32_t>(kI32, {2}, {0, 0}, 0.25f, 0);
  m.op(OperationType::FULLY_CONNECTED, {in, w, b, m.i32(0)}, {m.output(kU8, {1, 2}, 1.0f, 50)});
  ASSERT_EQ(m.run(), "");
  EXPECT_EQ(m.result<uint8_t>(), (std::vector<uint8_t>{53, 47}));  // 2.5 -> 3, -2.5 -> -3
}

TEST(FullyConnected, FlattensInputAndChecksSizes) {
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {2, 1, 2}, {1, 2, 3, 4});
  const uint32_t w = m.constant<float>(kF32, {1, 2}, {1, 10});
  const uint32_t b = m.constant<float>(kF32, {1}, {0.5f});
  m.op(OperationType::FULLY_CONNECTED, {in, w, b, m.i32(0)}, {m.output(kF32, {0, 0})});
  ASSERT_EQ(m.run(), "");
  EXPECT_EQ(m.resultDims(), (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(m.result<float>(), (std::vector<float>{21.5f, 43.5f}));

  OneOp bad;
  const uint32_t in2 = bad.input<float>(kF32, {1, 3}, {1, 2, 3});
  const uint32_t w2 = bad.constant<float>(kF32, {1, 2}, {1, 10});
  const uint32_t b2 = bad.constant<float>(kF32, {1}, {0.5f});
  bad.op(OperationType::FULLY_CONNECTED, {in2, w2, b2, bad.i32(0)}, {bad.output(kF32, {0, 0})});
  EXPECT_NE(bad.run().find("multiple"), std::string::npos);
}

TEST(BatchMatmul, Int32WrapsAndAdjointsAgree) {
  OneOp m;
  const uint32_t lhs = m.input<int32_t>(kI32, {1, 1, 2}, {65536, 2147483647});
  const uint32_t rhs = m.input<int32_t>(kI32, {1, 2, 1}, {65536, 2});
  m.op(OperationType::BATCH_MATMUL, {lhs, rhs, m.flag(false), m.flag(false)},
       {m.output(kI32, {1, 1, 1})});
  ASSERT_EQ(m.run(), "");
  // 2^32 + (2^31 - 1) * 2 wraps to -2.
  EXPECT_EQ(m.result<int32_t>(), (std::vector<int32_t>{-2}));

  // lhs [2x3] x rhs [3x2], then the same with both given transposed and adjoint flags.
  const std::vector<float> l = {1, 2, 3, 4, 5, 6}, lt = {1, 4, 2, 5, 3, 6};
  const std::vector<float> r = {1, 0, 0, 1, 1, 1}, rt = {1, 0, 1, 0, 1, 1};
  std::vector<std::vector<float>> results;
  for (bool adj : {false, true}) {
    OneOp f;
    const uint32_t a = f.input<float>(
        kF32, adj ? std::vector<uint32_t>{3, 2} : std::vector<uint32_t>{2, 3}, adj ? lt : l);
    const uint32_t c = f.input<float>(
        kF32, adj ? std::vector<uint32_t>{2, 3} : std::vector<uint32_t>{3, 2}, adj ? rt : r);
    f.op(OperationType::BATCH_MATMUL, {a, c, f.flag(adj), f.flag(adj)}, {f.output(kF32, {0, 0})});
    ASSERT_EQ(f.run(), "");
    EXPECT_EQ(f.resultDims(), (std::vector<uint32_t>{2, 2}));
    results.push_back(f.result<float>());
  }
  EXPECT_EQ(results[0], (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(results[1], results[0]);
}

TEST(BatchMatmul, BatchMismatchIsRejectedAndRhsBroadcasts) {
  for (uint32_t rhsBatch : {1u, 3u}) {
    OneOp m;
    const uint32_t lhs = m.input<float>(kF32, {2, 1, 1}, {2, 3});
    const uint32_t rhs = m.input<float>(kF32, {rhsBatch, 1, 1}, std::vector<float>(rhsBatch, 5));
    m.op(OperationType::BATCH_MATMUL, {lhs, rhs, m.flag(false), m.flag(false)},
         {m.output(kF32, {0, 0, 0})});
    const std::string err = m.run();
    if (rhsBatch == 1) {
      ASSERT_EQ(err, "");
      EXPECT_EQ(m.result<float>(), (std::vector<float>{10, 15}));
    } else {
      EXPECT_NE(err.find("batch dimension"), std::string::npos) << err;
    }
  }
}

template <typename T>
std::vector<T> averagePool2x1(OperandType type, const std::vector<T>& values) {
  OneOp m;
  const uint32_t in = m.input<T>(type, {1, 1, 2, 1}, values, 1.0f, 0);
  m.op(OperationType::AVERAGE_POOL_2D,
       {in, m.i32(kValid), m.i32(1), m.i32(1), m.i32(2), m.i32(1), m.i32(0)},
       {m.output(type, {1, 1, 1, 1}, 1.0f, 0)});
  EXPECT_EQ(m.run(), "");
  return m.result<T>();
}

TEST(AveragePool2D, QuantizedRounding) {
  EXPECT_EQ(averagePool2x1<uint8_t>(kU8, {1, 2}), (std::vector<uint8_t>{2}));   // 1.5 -> 2
  EXPECT_EQ(averagePool2x1<uint8_t>(kU8, {0, 1}), (std::vector<uint8_t>{1}));   // 0.5 -> 1
  EXPECT_EQ(averagePool2x1<int8_t>(kS8, {-1, -2}), (std::vector<int8_t>{-2}));  // -1.5 -> -2
  EXPECT_EQ(averagePool2x1<int8_t>(kS8, {-1, 0}), (std::vector<int8_t>{-1}));   // -0.5 -> -1
  EXPECT_EQ(averagePool2x1<int8_t>(kS8, {3, 4}), (std::vector<int8_t>{4}));     // 3.5 -> 4
}

TEST(AveragePool2D, PaddingIsNotCounted) {
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {1, 2, 2, 1}, {1, 2, 3, 4});
  m.op(OperationType::AVERAGE_POOL_2D,
       {in, m.i32(kSame), m.i32(1), m.i32(1), m.i32(2), m.i32(2), m.i32(0)},
       {m.output(kF32, {1, 2, 2, 1})});
  ASSERT_EQ(m.run(), "");
  EXPECT_EQ(m.result<float>(), (std::vector<float>{2.5f, 3, 3.5f, 4}));
}

TEST(MaxPool2D, NchwAndActivation) {
  OneOp m;
  // NCHW [1, 2, 1, 3]: channel 0 = 1 5 2, channel 1 = -4 -3 -9
  const uint32_t in = m.input<float>(kF32, {1, 2, 1, 3}, {1, 5, 2, -4, -3, -9});
  m.op(OperationType::MAX_POOL_2D,
       {in, m.i32(kValid), m.i32(1), m.i32(1), m.i32(2), m.i32(1), m.i32(2), m.flag(true)},
       {m.output(kF32, {1, 2, 1, 2})});
  ASSERT_EQ(m.run(), "");
  EXPECT_EQ(m.result<float>(), (std::vector<float>{1, 1, -1, -1}));  // RELU1 clamps
}

TEST(L2Pool2D, ValueAndQuantizedInputIsRejected) {
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {1, 1, 2, 1}, {3, 4});
  m.op(OperationType::L2_POOL_2D,
       {in, m.i32(kValid), m.i32(1), m.i32(1), m.i32(2), m.i32(1), m.i32(0)},
       {m.output(kF32, {1, 1, 1, 1})});
  ASSERT_EQ(m.run(), "");
  EXPECT_FLOAT_EQ(m.result<float>()[0], std::sqrt(12.5f));

  OneOp q;
  const uint32_t qin = q.input<uint8_t>(kU8, {1, 1, 2, 1}, {3, 4}, 1.0f, 0);
  q.op(OperationType::L2_POOL_2D,
       {qin, q.i32(kValid), q.i32(1), q.i32(1), q.i32(2), q.i32(1), q.i32(0)},
       {q.output(kU8, {1, 1, 1, 1}, 1.0f, 0)});
  EXPECT_NE(q.run().find("validate"), std::string::npos);
}

TEST(Pooling, PaddingMustBeSmallerThanTheFilter) {
  OneOp m;
  const uint32_t in = m.input<float>(kF32, {1, 2, 2, 1}, {1, 2, 3, 4});
  m.op(OperationType::MAX_POOL_2D,
       {in, m.i32(2), m.i32(0), m.i32(0), m.i32(0), m.i32(1), m.i32(1), m.i32(2), m.i32(2),
        m.i32(0)},
       {m.output(kF32, {0, 0, 0, 0})});
  EXPECT_NE(m.run().find("smaller than the filter"), std::string::npos);
}

}  // namespace
}  // namespace nncosim::ops::conv_test
