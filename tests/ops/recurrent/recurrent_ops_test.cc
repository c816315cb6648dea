// Recurrent operations end to end on small models: hand-computed results, and bad shapes
// or parameters rejected with an error naming the input (never a crash).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ops/recurrent/recurrent_test_util.h"

namespace nncosim::ops::recurrent_test {
namespace {

// The error contains `part` (and is not empty).
#define EXPECT_ERROR_HAS(expr, part)                                    \
  do {                                                                  \
    const std::string err_ = (expr);                                    \
    EXPECT_NE(err_.find(part), std::string::npos) << "error: " << err_; \
  } while (0)

// ---- RNN ----

struct RnnModel {
  std::vector<uint32_t> hiddenDims = {1, 2};
  int32_t activation = 1;
};

std::string runRnn(OneOp& m, const RnnModel& r) {
  const uint32_t in = m.floats({1, 2}, {1.0f, 1.0f});
  const uint32_t w = m.floats({2, 2}, {1, 2, 3, 4});
  const uint32_t rec = m.floats({2, 2}, {0.5f, 0, 0, 0.5f});
  const uint32_t bias = m.floats({2}, {0.1f, -0.1f});
  std::vector<float> hidden(r.hiddenDims[0] * r.hiddenDims[1], 0.0f);
  hidden[0] = 1.0f;
  if (hidden.size() > 1) hidden[1] = -1.0f;
  const uint32_t h = m.floats(r.hiddenDims, hidden);
  m.op(OperationType::RNN, {in, w, rec, bias, h, m.i32(r.activation)},
       {m.outFloats({1, 2}), m.outFloats({1, 2})});
  return m.run();
}

TEST(Rnn, OneStepMatchesHandComputation) {
  OneOp m;
  ASSERT_EQ(runRnn(m, {}), "");
  const auto out = m.result<float>(1);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NEAR(out[0], 0.1f + 1 + 2 + 0.5f, 1e-6);
  EXPECT_NEAR(out[1], -0.1f + 3 + 4 - 0.5f, 1e-6);
  EXPECT_EQ(m.result<float>(0), out);
}

TEST(Rnn, RejectsMismatchedHiddenState) {
  OneOp m;
  RnnModel r;
  r.hiddenDims = {1, 3};
  EXPECT_ERROR_HAS(runRnn(m, r), "input 4");
}

TEST(Rnn, RejectsUnknownActivation) {
  OneOp m;
  RnnModel r;
  r.activation = 17;
  EXPECT_ERROR_HAS(runRnn(m, r), "activation 17");
}

TEST(UnidirectionalSequenceRnn, RejectsTimeMajorOtherThanZeroOrOne) {
  OneOp m;
  const uint32_t in = m.floats({2, 1, 1}, {1, 2});
  m.op(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN,
       {in, m.floats({1, 1}, {1}), m.floats({1, 1}, {1}), m.floats({1}, {0}), m.floats({1, 1}, {0}),
        m.i32(0), m.i32(2)},
       {m.outFloats({2, 1, 1})});
  EXPECT_ERROR_HAS(m.run(), "time_major");
}

TEST(UnidirectionalSequenceRnn, BatchMajorSequenceCarriesState) {
  OneOp m;
  // h_t = x_t + h_{t-1}: a running sum per batch row.
  const uint32_t in = m.floats({2, 3, 1}, {1, 2, 3, 10, 20, 30});
  m.op(OperationType::UNIDIRECTIONAL_SEQUENCE_RNN,
       {in, m.floats({1, 1}, {1}), m.floats({1, 1}, {1}), m.floats({1}, {0}),
        m.floats({2, 1}, {0, 100}), m.i32(0), m.i32(0)},
       {m.outFloats({2, 3, 1}), m.outFloats({2, 1})});
  ASSERT_EQ(m.run(), "");
  EXPECT_EQ(m.result<float>(0), (std::vector<float>{1, 3, 6, 110, 130, 160}));
  EXPECT_EQ(m.result<float>(1), (std::vector<float>{6, 160}));
}

TEST(BidirectionalSequenceRnn, MergeOutputsNeedsOneOrThreeOutputs) {
  OneOp m;
  const uint32_t in = m.floats({1, 1, 1}, {1});
  auto cell = [&] {
    return std::vector<uint32_t>{m.floats({1, 1}, {1}), m.floats({1, 1}, {1}), m.floats({1}, {0}),
                                 m.floats({1, 1}, {0})};
  };
  std::vector<uint32_t> ins{in};
  for (uint32_t i : cell()) ins.push_back(i);
  for (uint32_t i : cell()) ins.push_back(i);
  ins.insert(ins.end(),
             {m.omitted(), m.omitted(), m.omitted(), m.i32(0), m.flag(true), m.flag(true)});
  m.op(OperationType::BIDIRECTIONAL_SEQUENCE_RNN, ins,
       {m.outFloats({1, 1, 2}), m.outFloats({1, 1, 1})});
  EXPECT_ERROR_HAS(m.run(), "merge_outputs");
}

// ---- SVDF ----

TEST(Svdf, OneStepMatchesHandComputation) {
  OneOp m;
  m.op(OperationType::SVDF,
       {m.floats({1, 1}, {1}), m.floats({1, 1}, {2}), m.floats({1, 2}, {0.5f, 1}), m.omitted(),
        m.floats({1, 2}, {3, 7}), m.i32(1), m.i32(0)},
       {m.outFloats({1, 2}), m.outFloats({1, 1})});
  ASSERT_EQ(m.run(), "");
  // The newest activation (2) replaces the last memory slot: 0.5 * 3 + 1 * 2.
  EXPECT_EQ(m.result<float>(1), (std::vector<float>{3.5f}));
  EXPECT_EQ(m.result<float>(0), (std::vector<float>{2, 0}));
}

TEST(Svdf, RejectsRankThatDoesNotDivideFilters) {
  OneOp m;
  m.op(OperationType::SVDF,
       {m.floats({1, 1}, {1}), m.floats({4, 1}, {1, 1, 1, 1}), m.floats({4, 1}, {1, 1, 1, 1}),
        m.omitted(), m.floats({1, 4}, {0, 0, 0, 0}), m.i32(3), m.i32(0)},
       {m.outFloats({1, 4}), m.outFloats({1, 0})});
  EXPECT_ERROR_HAS(m.run(), "rank 3");
}

// ---- LSTM ----

// A one-cell LSTM (1 input, 1 cell, 1 output); `peephole` adds all three peepholes,
// `dropCellToOutput` then omits one of them.
struct LstmModel {
  bool peephole = false;
  bool dropCellToOutput = false;
  uint32_t forgetWeightCols = 1;
};

std::string runLstm(OneOp& m, const LstmModel& c) {
  std::vector<uint32_t> in;
  in.push_back(m.floats({1, 1}, {0.5f}));   // input
  for (float w : {0.1f, 0.2f, 0.3f, 0.4f})  // input-to-*
    in.push_back(w == 0.2f
                     ? m.floats({1, c.forgetWeightCols}, std::vector<float>(c.forgetWeightCols, w))
                     : m.floats({1, 1}, {w}));
  for (float w : {-0.1f, 0.5f, 0.6f, -0.7f}) in.push_back(m.floats({1, 1}, {w}));  // recurrent
  for (int k = 0; k < 3; ++k) {                                                    // peepholes
    const bool on = c.peephole && !(k == 2 && c.dropCellToOutput);
    in.push_back(on ? m.floats({1}, {0.25f}) : m.omitted());
  }
  for (float b : {0.01f, 0.02f, 0.03f, 0.04f}) in.push_back(m.floats({1}, {b}));  // biases
  in.push_back(m.omitted());                                                      // projection
  in.push_back(m.omitted());
  in.push_back(m.floats({1, 1}, {0.2f}));  // output state
  in.push_back(m.floats({1, 1}, {0.3f}));  // cell state
  in.push_back(m.i32(4));                  // tanh
  in.push_back(m.f32(0.0f));
  in.push_back(m.f32(0.0f));
  m.op(OperationType::LSTM, in,
       {m.outFloats({1, 4}), m.outFloats({1, 1}), m.outFloats({1, 1}), m.outFloats({1, 1})});
  return m.run();
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TEST(Lstm, OneCellMatchesHandComputation) {
  OneOp m;
  ASSERT_EQ(runLstm(m, {}), "");
  const double x = 0.5, h = 0.2, c = 0.3;
  const double i = sigmoid(0.1 * x - 0.1 * h + 0.01);
  const double f = sigmoid(0.2 * x + 0.5 * h + 0.02);
  const double g = std::tanh(0.3 * x + 0.6 * h + 0.03);
  const double o = sigmoid(0.4 * x - 0.7 * h + 0.04);
  const double c2 = f * c + i * g;
  const double h2 = o * std::tanh(c2);
  EXPECT_NEAR(m.result<float>(2)[0], c2, 1e-6);
  EXPECT_NEAR(m.result<float>(3)[0], h2, 1e-6);
  EXPECT_NEAR(m.result<float>(1)[0], h2, 1e-6);
}

TEST(Lstm, PeepholeOnOutputGateSeesTheNewCellState) {
  OneOp m;
  LstmModel cfg;
  cfg.peephole = true;
  ASSERT_EQ(runLstm(m, cfg), "");
  const double x = 0.5, h = 0.2, c = 0.3, p = 0.25;
  const double i = sigmoid(0.1 * x - 0.1 * h + p * c + 0.01);
  const double f = sigmoid(0.2 * x + 0.5 * h + p * c + 0.02);
  const double g = std::tanh(0.3 * x + 0.6 * h + 0.03);
  const double c2 = f * c + i * g;
  const double o = sigmoid(0.4 * x - 0.7 * h + p * c2 + 0.04);
  EXPECT_NEAR(m.result<float>(3)[0], o * std::tanh(c2), 1e-6);
}

TEST(Lstm, RejectsPartialPeepholes) {
  OneOp m;
  LstmModel cfg;
  cfg.peephole = true;
  cfg.dropCellToOutput = true;
  EXPECT_ERROR_HAS(runLstm(m, cfg), "peephole");
}

TEST(Lstm, RejectsWeightShapeMismatch) {
  OneOp m;
  LstmModel cfg;
  cfg.forgetWeightCols = 3;
  EXPECT_ERROR_HAS(runLstm(m, cfg), "input 2 (input_to_forget_weights)");
}

// ---- quantized LSTMs ----

TEST(Quantized16BitLstm, RejectsInputScaleOtherThanOneOver128) {
  OneOp m;
  constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
  const float ws = 0.00408021f;
  std::vector<uint32_t> in{m.input<uint8_t>(kU8, {1, 2}, {128, 128}, 0.01f, 128)};
  for (int k = 0; k < 4; ++k)
    in.push_back(m.input<uint8_t>(kU8, {4, 2}, std::vector<uint8_t>(8, 100), ws, 100));
  for (int k = 0; k < 4; ++k)
    in.push_back(m.input<uint8_t>(kU8, {4, 4}, std::vector<uint8_t>(16, 100), ws, 100));
  for (int k = 0; k < 4; ++k)
    in.push_back(m.input<int32_t>(OperandType::TENSOR_INT32, {4}, {0, 0, 0, 0}, ws / 128, 0));
  in.push_back(
      m.input<int16_t>(OperandType::TENSOR_QUANT16_SYMM, {1, 4}, {0, 0, 0, 0}, 1.0f / 2048, 0));
  in.push_back(m.input<uint8_t>(kU8, {1, 4}, {128, 128, 128, 128}, 1.0f / 128, 128));
  m.op(OperationType::QUANTIZED_16BIT_LSTM, in,
       {m.output(OperandType::TENSOR_QUANT16_SYMM, {1, 4}, 1.0f / 2048, 0),
        m.output(kU8, {1, 4}, 1.0f / 128, 128)});
  EXPECT_ERROR_HAS(m.run(), "input 0 (input): expected scale 1/128");
}

// A CIFG QUANTIZED_LSTM without layer norm: 2 inputs, 2 units, 2 outputs.
std::string runQuantizedLstm(OneOp& m, float cellScale, int32_t forgetBias) {
  constexpr OperandType kI8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  constexpr OperandType kW = OperandType::TENSOR_QUANT8_SYMM;
  constexpr OperandType kI16 = OperandType::TENSOR_QUANT16_SYMM;
  constexpr OperandType kI32 = OperandType::TENSOR_INT32;
  std::vector<uint32_t> in{m.input<int8_t>(kI8, {1, 2}, {64, -32}, 0.0078125f, 0)};
  in.push_back(m.omitted(kW));
  for (int k = 0; k < 3; ++k)
    in.push_back(m.input<int8_t>(kW, {2, 2}, {10, 20, -30, 40}, 0.01f, 0));
  in.push_back(m.omitted(kW));
  for (int k = 0; k < 3; ++k) in.push_back(m.input<int8_t>(kW, {2, 2}, {5, -5, 7, 9}, 0.01f, 0));
  for (int k = 0; k < 3; ++k) in.push_back(m.omitted(kI16));
  in.push_back(m.omitted(kI32));
  in.push_back(m.input<int32_t>(kI32, {2}, {forgetBias, forgetBias}));
  for (int k = 0; k < 2; ++k) in.push_back(m.input<int32_t>(kI32, {2}, {0, 0}));
  in.push_back(m.omitted(kW));
  in.push_back(m.omitted(kI32));
  in.push_back(m.input<int8_t>(kI8, {1, 2}, {3, -3}, 0.0078125f, 0));
  in.push_back(m.input<int16_t>(kI16, {1, 2}, {8000, -8000}, cellScale, 0));
  for (int k = 0; k < 4; ++k) in.push_back(m.omitted(kI16));
  for (float v : {0.0f, 0.0f, 0.007f, 0.007f, 0.007f, 0.007f}) in.push_back(m.f32(v));
  in.push_back(m.i32(0));
  in.push_back(m.f32(0.0078125f));
  m.op(OperationType::QUANTIZED_LSTM, in,
       {m.output(kI8, {1, 2}, 0.0078125f, 0), m.output(kI16, {1, 2}, cellScale, 0),
        m.output(kI8, {1, 2}, 0.0078125f, 0)});
  return m.run();
}

TEST(QuantizedLstm, RejectsCellStateScaleThatIsNotAPowerOfTwo) {
  OneOp m;
  EXPECT_ERROR_HAS(runQuantizedLstm(m, 0.001f, 0), "power of two");
}

TEST(QuantizedLstm, GateBiasesApplyWithoutLayerNorm) {
  // NNAPI's CPU path drops the gate biases when there is no layer norm; the spec (bias
  // in the input x weights scale) and TFLite add them to the gate products.
  OneOp a, b;
  ASSERT_EQ(runQuantizedLstm(a, 1.0f / 32768, 0), "");
  ASSERT_EQ(runQuantizedLstm(b, 1.0f / 32768, 200000), "");
  EXPECT_NE(a.result<int16_t>(1), b.result<int16_t>(1));
  EXPECT_EQ(a.result<int8_t>(0), a.result<int8_t>(2));
}

}  // namespace
}  // namespace nncosim::ops::recurrent_test
