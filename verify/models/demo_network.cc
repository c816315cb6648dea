#include "verify/models/demo_network.h"

#include <cstdint>

#include "hal/model_builder.h"

namespace nncosim::verify {
namespace {

using hal::OperandType;
using hal::OperationType;

// Small deterministic generator so the demo's weights are the same on every machine.
class Lcg {
 public:
  explicit Lcg(uint32_t seed) : s_(seed) {}
  uint32_t next() {
    s_ = s_ * 1664525u + 1013904223u;
    return s_ >> 8;
  }
  int8_t int8(int range) {
    return static_cast<int8_t>(static_cast<int>(next() % (2 * range + 1)) - range);
  }
  int32_t int32(int range) { return static_cast<int32_t>(next() % (2 * range + 1)) - range; }

 private:
  uint32_t s_;
};

constexpr OperandType kI8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;

}  // namespace

hal::Model demoNetwork() {
  hal::ModelBuilder b;
  Lcg rng(2026);
  const float inScale = 0.02f, c1Scale = 0.05f, dwScale = 0.04f, c2Scale = 0.06f, fcScale = 0.25f;
  const uint32_t input = b.addInput(kI8, {1, 16, 16, 3}, inScale, -5, "image");

  auto i8vec = [&](size_t n, int range) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = rng.int8(range);
    return v;
  };
  auto biasVec = [&](size_t n) {
    std::vector<int32_t> v(n);
    for (auto& x : v) x = rng.int32(200);
    return v;
  };
  const uint32_t zero = b.addInt32(0), one = b.addInt32(1), two = b.addInt32(2);
  const uint32_t same = b.addInt32(1);  // PADDING_SAME
  const uint32_t relu = b.addInt32(1), relu6 = b.addInt32(3), none = b.addInt32(0);

  // conv1: 3x3, 3 -> 16 channels, stride 1, SAME, ReLU.
  const float w1Scale = 0.01f;
  const uint32_t w1 =
      b.addConstant(kI8, {16, 3, 3, 3}, i8vec(16 * 27, 100), w1Scale, 0, "conv1.weights");
  const uint32_t b1 = b.addConstant(OperandType::TENSOR_INT32, {16}, biasVec(16), inScale * w1Scale,
                                    0, "conv1.bias");
  const uint32_t c1 = b.addOperand(kI8, {1, 16, 16, 16}, c1Scale, -10,
                                   hal::OperandLifeTime::TEMPORARY_VARIABLE, "conv1");
  b.addOperation(OperationType::CONV_2D, {input, w1, b1, same, one, one, relu}, {c1});

  // dw: 3x3 depthwise, stride 2, SAME, ReLU6.
  const float wdScale = 0.02f;
  const uint32_t wd =
      b.addConstant(kI8, {1, 3, 3, 16}, i8vec(9 * 16, 100), wdScale, 0, "dw.weights");
  const uint32_t bd =
      b.addConstant(OperandType::TENSOR_INT32, {16}, biasVec(16), c1Scale * wdScale, 0, "dw.bias");
  const uint32_t dw = b.addOperand(kI8, {1, 8, 8, 16}, dwScale, -20,
                                   hal::OperandLifeTime::TEMPORARY_VARIABLE, "dw");
  b.addOperation(OperationType::DEPTHWISE_CONV_2D, {c1, wd, bd, same, two, two, one, relu6}, {dw});

  // conv2: 1x1, 16 -> 32 channels, per-channel quantized weights, ReLU.
  std::vector<float> w2Scales(32);
  std::vector<int32_t> b2(32);
  for (size_t c = 0; c < 32; ++c) {
    w2Scales[c] = 0.005f + 0.0005f * static_cast<float>(c);
    b2[c] = rng.int32(300);
  }
  const uint32_t w2 = b.addConstant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {32, 1, 1, 16},
                                    i8vec(32 * 16, 127), 0.0f, 0, "conv2.weights");
  b.setChannelQuant(w2, w2Scales, 0);
  const uint32_t bias2 = b.addConstant(OperandType::TENSOR_INT32, {32}, b2, 0.0f, 0, "conv2.bias");
  const uint32_t c2 = b.addOperand(kI8, {1, 8, 8, 32}, c2Scale, -15,
                                   hal::OperandLifeTime::TEMPORARY_VARIABLE, "conv2");
  b.addOperation(OperationType::CONV_2D, {dw, w2, bias2, same, one, one, relu}, {c2});

  // flatten (CPU)
  const uint32_t shape =
      b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 2048});
  const uint32_t flat = b.addOperand(kI8, {1, 2048}, c2Scale, -15,
                                     hal::OperandLifeTime::TEMPORARY_VARIABLE, "flatten");
  b.addOperation(OperationType::RESHAPE, {c2, shape}, {flat});

  // Sparse FC weights [10, 2048], ~85% zeros, CSR over dimension 1.
  const uint32_t units = 10, depth = 2048;
  std::vector<int8_t> values;
  std::vector<int32_t> segments{0}, indices;
  for (uint32_t r = 0; r < units; ++r) {
    for (uint32_t c = 0; c < depth; ++c) {
      if (rng.next() % 100 >= 15) continue;
      int8_t v = rng.int8(127);
      if (v == 0) v = 1;
      values.push_back(v);
      indices.push_back(static_cast<int32_t>(c));
    }
    segments.push_back(static_cast<int32_t>(indices.size()));
  }
  const float wfScale = 0.003f;
  const uint32_t nnz = static_cast<uint32_t>(values.size());
  const uint32_t sv = b.addConstant(kI8, {nnz}, values, wfScale, 0, "fc.sparse_values");
  const uint32_t order = b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{0, 1});
  const uint32_t blockMap = b.addConstant(OperandType::TENSOR_INT32, {0}, std::vector<int32_t>{});
  const uint32_t formats =
      b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{0, 1});
  const uint32_t dims =
      b.addConstant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{10, 2048});
  const uint32_t d0seg = b.addConstant(OperandType::TENSOR_INT32, {0}, std::vector<int32_t>{});
  const uint32_t d0idx = b.addConstant(OperandType::TENSOR_INT32, {0}, std::vector<int32_t>{});
  const uint32_t d1seg = b.addConstant(OperandType::TENSOR_INT32, {units + 1}, segments);
  const uint32_t d1idx = b.addConstant(OperandType::TENSOR_INT32, {nnz}, indices);
  const uint32_t wf = b.addOperand(kI8, {units, depth}, wfScale, 0,
                                   hal::OperandLifeTime::TEMPORARY_VARIABLE, "fc.weights");
  b.addOperation(OperationType::DENSIFY,
                 {sv, order, blockMap, formats, dims, d0seg, d0idx, d1seg, d1idx}, {wf});

  const uint32_t bf = b.addConstant(OperandType::TENSOR_INT32, {units}, biasVec(units),
                                    c2Scale * wfScale, 0, "fc.bias");
  const uint32_t fc =
      b.addOperand(kI8, {1, units}, fcScale, 0, hal::OperandLifeTime::TEMPORARY_VARIABLE, "fc");
  b.addOperation(OperationType::FULLY_CONNECTED, {flat, wf, bf, none}, {fc});

  // Float tail on the CPU fallback.
  const uint32_t logits = b.addOperand(OperandType::TENSOR_FLOAT32, {1, units}, 0.0f, 0,
                                       hal::OperandLifeTime::TEMPORARY_VARIABLE, "logits");
  b.addOperation(OperationType::DEQUANTIZE, {fc}, {logits});
  const uint32_t beta = b.addFloat32(1.0f);
  const uint32_t probs =
      b.addOutput(OperandType::TENSOR_FLOAT32, {1, units}, 0.0f, 0, "probabilities");
  b.addOperation(OperationType::SOFTMAX, {logits, beta}, {probs});
  (void)zero;
  return b.build();
}

std::vector<hal::TensorValue> demoInputs(const hal::Model& model) {
  const auto& o = model.main.operands[model.main.inputIndexes[0]];
  hal::TensorValue v;
  v.type = o.type;
  v.dimensions = o.dimensions;
  v.bytes.resize(16 * 16 * 3);
  // A smooth synthetic image: a diagonal gradient per channel.
  for (uint32_t y = 0; y < 16; ++y)
    for (uint32_t x = 0; x < 16; ++x)
      for (uint32_t c = 0; c < 3; ++c)
        v.bytes[(y * 16 + x) * 3 + c] = static_cast<uint8_t>(
            static_cast<int8_t>(static_cast<int>((x * 8 + y * 5 + c * 40) % 200) - 100));
  return {v};
}

}  // namespace nncosim::verify
