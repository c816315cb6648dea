// Elementwise operations through the executor: broadcasting, the integer rounding of the
// quantized kernels (bit-exact with NNAPI where its test generator rounded differently),
// the fixed-point transcendental functions, and bad shapes/values giving errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ops/elementwise/common.h"
#include "ops/elementwise/fixed_point_math.h"
#include "ops/executor.h"

namespace nncosim::ops {
namespace {

using hal::OperandLifeTime;
using hal::OperandType;
using hal::OperationType;

// A one-operation model built operand by operand.
class OneOp {
 public:
  uint32_t input(OperandType t, std::vector<uint32_t> dims, float scale = 0, int32_t zp = 0) {
    return add(t, std::move(dims), OperandLifeTime::SUBGRAPH_INPUT, scale, zp);
  }
  uint32_t output(OperandType t, std::vector<uint32_t> dims, float scale = 0, int32_t zp = 0) {
    return add(t, std::move(dims), OperandLifeTime::SUBGRAPH_OUTPUT, scale, zp);
  }
  template <typename T>
  uint32_t constant(OperandType t, std::vector<uint32_t> dims, std::vector<T> values) {
    const uint32_t i = add(t, std::move(dims), OperandLifeTime::CONSTANT_COPY, 0, 0);
    auto& pool = model_.operandValues;
    const size_t at = (pool.size() + 7) & ~size_t{7};
    const size_t size = values.size() * sizeof(T);
    pool.resize(at + size);
    std::memcpy(pool.data() + at, values.data(), size);
    model_.main.operands[i].location =
        hal::DataLocation{0, static_cast<uint32_t>(at), static_cast<uint32_t>(size)};
    return i;
  }
  uint32_t noValue(OperandType t) { return add(t, {}, OperandLifeTime::NO_VALUE, 0, 0); }
  uint32_t int32(int32_t v) { return constant<int32_t>(OperandType::INT32, {}, {v}); }
  uint32_t float32(float v) { return constant<float>(OperandType::FLOAT32, {}, {v}); }
  void op(OperationType t, std::vector<uint32_t> in, std::vector<uint32_t> out) {
    model_.main.operations.push_back(hal::Operation{t, std::move(in), std::move(out)});
  }
  hal::Operand& operand(uint32_t i) { return model_.main.operands[i]; }

  // Validates, then runs with `inputs` (in input order); returns the first output.
  Result<hal::TensorValue> run(const std::vector<hal::TensorValue>& inputs) {
    if (Status st = validateOperations(model_); !st.ok()) return Error{st.error()};
    Executor ex(model_);
    std::vector<hal::TensorValue> outs;
    if (Status st = ex.run(inputs, outs); !st.ok()) return Error{st.error()};
    return outs.at(0);
  }

 private:
  uint32_t add(OperandType t, std::vector<uint32_t> dims, OperandLifeTime life, float scale,
               int32_t zp) {
    hal::Operand o;
    o.type = t;
    o.dimensions = std::move(dims);
    o.lifetime = life;
    o.scale = scale;
    o.zeroPoint = zp;
    model_.main.operands.push_back(o);
    const auto i = static_cast<uint32_t>(model_.main.operands.size() - 1);
    if (life == OperandLifeTime::SUBGRAPH_INPUT) model_.main.inputIndexes.push_back(i);
    if (life == OperandLifeTime::SUBGRAPH_OUTPUT) model_.main.outputIndexes.push_back(i);
    return i;
  }
  hal::Model model_;
};

template <typename T>
hal::TensorValue tensor(OperandType t, std::vector<T> v, std::vector<uint32_t> dims) {
  hal::TensorValue tv;
  tv.type = t;
  tv.dimensions = std::move(dims);
  tv.bytes.resize(v.size() * sizeof(T));
  std::memcpy(tv.bytes.data(), v.data(), tv.bytes.size());
  return tv;
}

template <typename T>
std::vector<T> values(const hal::TensorValue& tv) {
  std::vector<T> v(tv.bytes.size() / sizeof(T));
  std::memcpy(v.data(), tv.bytes.data(), tv.bytes.size());
  return v;
}

TEST(ElementwiseBroadcast, IndexesFollowNumpyRules) {
  Shape a, b;
  a.dimensions = {2, 1, 3};
  b.dimensions = {4, 1};
  auto dims = elementwise::broadcastDims(a, b);
  ASSERT_TRUE(dims.ok());
  EXPECT_EQ(*dims, (std::vector<uint32_t>{2, 4, 3}));
  std::vector<std::pair<uint64_t, uint64_t>> seen;
  elementwise::forEachBroadcast(*dims, a, b, [&](uint64_t o, uint64_t ia, uint64_t ib) {
    EXPECT_EQ(o, seen.size());
    seen.emplace_back(ia, ib);
  });
  ASSERT_EQ(seen.size(), 24u);
  // out[n][h][w] reads a[n][0][w] and b[h][0].
  for (uint64_t n = 0; n < 2; ++n)
    for (uint64_t h = 0; h < 4; ++h)
      for (uint64_t w = 0; w < 3; ++w) {
        const auto& p = seen[(n * 4 + h) * 3 + w];
        EXPECT_EQ(p.first, n * 3 + w);
        EXPECT_EQ(p.second, h);
      }
}

TEST(ElementwiseBroadcast, IncompatibleShapesAreAnError) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {2, 3});
  const uint32_t b = m.input(OperandType::TENSOR_FLOAT32, {4});
  const uint32_t out = m.output(OperandType::TENSOR_FLOAT32, {0, 0});
  m.op(OperationType::ADD, {a, b, m.int32(0)}, {out});
  auto r = m.run({tensor<float>(OperandType::TENSOR_FLOAT32, {1, 2, 3, 4, 5, 6}, {2, 3}),
                  tensor<float>(OperandType::TENSOR_FLOAT32, {1, 2, 3, 4}, {4})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("broadcast"), std::string::npos) << r.error();
}

TEST(ElementwiseArithmetic, OmittedActivationIsAnError) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {1});
  const uint32_t b = m.input(OperandType::TENSOR_FLOAT32, {1});
  const uint32_t out = m.output(OperandType::TENSOR_FLOAT32, {1});
  m.op(OperationType::ADD, {a, b, m.noValue(OperandType::INT32)}, {out});
  auto r = m.run({tensor<float>(OperandType::TENSOR_FLOAT32, {1}, {1}),
                  tensor<float>(OperandType::TENSOR_FLOAT32, {2}, {1})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("omitted"), std::string::npos) << r.error();
}

TEST(ElementwiseArithmetic, FloatAddBroadcastsWithRelu) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {2, 2});
  const uint32_t b = m.input(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = m.output(OperandType::TENSOR_FLOAT32, {2, 2});
  m.op(OperationType::ADD, {a, b, m.int32(1)}, {out});
  auto r = m.run({tensor<float>(OperandType::TENSOR_FLOAT32, {1, -5, 3, -1}, {2, 2}),
                  tensor<float>(OperandType::TENSOR_FLOAT32, {10, 2}, {2})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<float>(*r), (std::vector<float>{11, 0, 13, 1}));
}

TEST(ElementwiseArithmetic, Int32DivIsFloorDivisionAndZeroDivisorGivesZero) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_INT32, {5});
  const uint32_t b = m.input(OperandType::TENSOR_INT32, {5});
  const uint32_t out = m.output(OperandType::TENSOR_INT32, {5});
  m.op(OperationType::DIV, {a, b, m.int32(0)}, {out});
  auto r = m.run({tensor<int32_t>(OperandType::TENSOR_INT32, {7, -7, 7, 5, INT32_MIN}, {5}),
                  tensor<int32_t>(OperandType::TENSOR_INT32, {2, 2, -2, 0, -1}, {5})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<int32_t>(*r), (std::vector<int32_t>{3, -4, -4, 0, INT32_MIN}));
}

TEST(ElementwiseArithmetic, Int32WithFusedActivationIsRejected) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_INT32, {1});
  const uint32_t b = m.input(OperandType::TENSOR_INT32, {1});
  const uint32_t out = m.output(OperandType::TENSOR_INT32, {1});
  m.op(OperationType::ADD, {a, b, m.int32(1)}, {out});
  auto r = m.run({tensor<int32_t>(OperandType::TENSOR_INT32, {1}, {1}),
                  tensor<int32_t>(OperandType::TENSOR_INT32, {1}, {1})});
  EXPECT_FALSE(r.ok());
}

// SUB of (a - b) on scale-1 inputs into scale 10, zero point 120: exact ties (-24.5, -25.5)
// round away from zero, as NNAPI's integer kernel does (AOSP's generator used half-even).
TEST(ElementwiseArithmetic, QuantSubRoundsTiesAwayFromZero) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_QUANT8_ASYMM, {4}, 1.0f, 0);
  const uint32_t b = m.input(OperandType::TENSOR_QUANT8_ASYMM, {4}, 1.0f, 0);
  const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM, {4}, 10.0f, 120);
  m.op(OperationType::SUB, {a, b, m.int32(0)}, {out});
  auto r = m.run({tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {0, 5, 250, 255}, {4}),
                  tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {255, 250, 5, 0}, {4})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<uint8_t>(*r), (std::vector<uint8_t>{94, 95, 145, 146}));
}

TEST(ElementwiseArithmetic, QuantMulNeedsOutputScaleAboveProduct) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_QUANT8_ASYMM, {1}, 1.0f, 0);
  const uint32_t b = m.input(OperandType::TENSOR_QUANT8_ASYMM, {1}, 2.0f, 0);
  const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM, {1}, 2.0f, 0);
  m.op(OperationType::MUL, {a, b, m.int32(0)}, {out});
  auto r = m.run({tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {1}, {1}),
                  tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {1}, {1})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("scale"), std::string::npos) << r.error();
}

TEST(ElementwiseFixedPoint, TranscendentalsTrackFloat) {
  namespace fxp = elementwise::fxp;
  const double q0 = 2147483648.0, q4 = double(1 << 27);
  for (double x : {-7.5, -3.0, -1.0, -0.25, -0.01}) {
    const auto raw = static_cast<int32_t>(std::lround(x * q4));
    EXPECT_NEAR(fxp::expOnNegativeValues<4>(raw) / q0, std::exp(x), 1e-6) << x;
  }
  for (double x : {-7.5, -1.0, 0.3, 2.0, 7.9}) {
    const auto raw = static_cast<int32_t>(std::lround(x * q4));
    EXPECT_NEAR(fxp::logistic<4>(raw) / q0, 1 / (1 + std::exp(-x)), 1e-6) << x;
    EXPECT_NEAR(fxp::tanh<4>(raw) / q0, std::tanh(x), 1e-6) << x;
  }
  for (double x : {0.0, 0.25, 0.5, 0.99}) {
    const auto raw = static_cast<int32_t>(std::lround(x * q0));
    EXPECT_NEAR(fxp::oneOverOnePlusX(raw) / q0, 1 / (1 + x), 1e-6) << x;
  }
  EXPECT_EQ(fxp::logistic<4>(0), 1 << 30);
  EXPECT_EQ(fxp::tanh<4>(0), 0);
  EXPECT_EQ(fxp::expOnNegativeValues<5>(0), INT32_MAX);
}

TEST(ElementwiseActivation, QuantLogisticRejectsWrongOutputScale) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 128);
  const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM, {2}, 1.0f / 128, 0);
  m.op(OperationType::LOGISTIC, {a}, {out});
  auto r = m.run({tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {128, 130}, {2})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("scale"), std::string::npos) << r.error();
}

TEST(ElementwiseActivation, QuantLogisticAndTanhSaturate) {
  for (auto type : {OperationType::LOGISTIC, OperationType::TANH}) {
    const bool logistic = type == OperationType::LOGISTIC;
    OneOp m;
    const uint32_t a = m.input(OperandType::TENSOR_QUANT8_ASYMM, {3}, 0.5f, 128);
    const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM, {3},
                                  logistic ? 1.0f / 256 : 1.0f / 128, logistic ? 0 : 128);
    m.op(type, {a}, {out});
    auto r = m.run({tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {0, 128, 255}, {3})});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(values<uint8_t>(*r), (std::vector<uint8_t>{0, 128, 255})) << logistic;
  }
}

// 39 * 0.078125 = 3.046875 lies on a .5 tie of the output scale (97.5); TFLite's int16
// kernel lands on 97 (its reluish factor saturates at 32767/32768).
TEST(ElementwiseActivation, QuantHardSwishFollowsTheInt16Kernel) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_QUANT8_ASYMM, {3}, 0.078125f, 128);
  const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM, {3}, 0.03125f, 0);
  m.op(OperationType::HARD_SWISH, {a}, {out});
  auto r = m.run({tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {167, 128, 20}, {3})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<uint8_t>(*r), (std::vector<uint8_t>{97, 0, 0}));
}

TEST(ElementwiseSoftmax, BadAxisAndBetaAreErrors) {
  for (auto [axis, beta] : {std::pair{2, 1.0f}, std::pair{-3, 1.0f}, std::pair{0, 0.0f}}) {
    OneOp m;
    const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {2, 2});
    const uint32_t out = m.output(OperandType::TENSOR_FLOAT32, {2, 2});
    m.op(OperationType::SOFTMAX, {a, m.float32(beta), m.int32(axis)}, {out});
    auto r = m.run({tensor<float>(OperandType::TENSOR_FLOAT32, {1, 2, 3, 4}, {2, 2})});
    EXPECT_FALSE(r.ok()) << axis << " " << beta;
  }
}

TEST(ElementwiseSoftmax, QuantSoftmaxOfEqualValuesIsUniform) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, 0.5f, 0);
  const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, 1.0f / 256, 0);
  m.op(OperationType::SOFTMAX, {a, m.float32(1.0f)}, {out});
  auto r = m.run({tensor<uint8_t>(OperandType::TENSOR_QUANT8_ASYMM, {7, 7, 7, 7}, {1, 4})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<uint8_t>(*r), (std::vector<uint8_t>{64, 64, 64, 64}));
}

TEST(ElementwiseCast, FloatToQuant8SaturatesAndTruncates) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {5});
  const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM, {5}, 1.0f, 0);
  m.op(OperationType::CAST, {a}, {out});
  auto r = m.run({tensor<float>(OperandType::TENSOR_FLOAT32, {-3.5f, 2.9f, 255.7f, 300, 0}, {5})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<uint8_t>(*r), (std::vector<uint8_t>{0, 2, 255, 255, 0}));
}

TEST(ElementwiseCast, MismatchedShapesAreRejectedBeforeExecution) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {2, 3});
  const uint32_t out = m.output(OperandType::TENSOR_INT32, {3, 2});
  m.op(OperationType::CAST, {a}, {out});
  auto r = m.run({tensor<float>(OperandType::TENSOR_FLOAT32, {1, 2, 3, 4, 5, 6}, {2, 3})});
  EXPECT_FALSE(r.ok());
}

TEST(ElementwiseSelect, ShapeMismatchIsAnError) {
  OneOp m;
  const uint32_t c = m.input(OperandType::TENSOR_BOOL8, {2});
  const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {3});
  const uint32_t b = m.input(OperandType::TENSOR_FLOAT32, {3});
  const uint32_t out = m.output(OperandType::TENSOR_FLOAT32, {0});
  m.op(OperationType::SELECT, {c, a, b}, {out});
  auto r = m.run({tensor<uint8_t>(OperandType::TENSOR_BOOL8, {1, 0}, {2}),
                  tensor<float>(OperandType::TENSOR_FLOAT32, {1, 2, 3}, {3}),
                  tensor<float>(OperandType::TENSOR_FLOAT32, {4, 5, 6}, {3})});
  EXPECT_FALSE(r.ok());
}

TEST(ElementwiseDequantize, PerChannelUsesTheChannelScale) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 2});
  m.operand(a).channelQuant = hal::SymmPerChannelQuantParams{{0.5f, 2.0f}, 1};
  const uint32_t out = m.output(OperandType::TENSOR_FLOAT32, {2, 2});
  m.op(OperationType::DEQUANTIZE, {a}, {out});
  auto r =
      m.run({tensor<int8_t>(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 3, -4, 5}, {2, 2})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<float>(*r), (std::vector<float>{1, 6, -2, 10}));
}

TEST(ElementwiseQuantize, RoundsHalfAwayFromZeroAndSaturates) {
  OneOp m;
  const uint32_t a = m.input(OperandType::TENSOR_FLOAT32, {5});
  const uint32_t out = m.output(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, {5}, 0.5f, -1);
  m.op(OperationType::QUANTIZE, {a}, {out});
  auto r =
      m.run({tensor<float>(OperandType::TENSOR_FLOAT32, {0.25f, -0.25f, 0.75f, 100, -100}, {5})});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(values<int8_t>(*r), (std::vector<int8_t>{0, -2, 1, 127, -128}));
}

}  // namespace
}  // namespace nncosim::ops
