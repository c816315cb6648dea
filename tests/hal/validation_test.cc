#include "hal/validation.h"

#include <cmath>

#include <gtest/gtest.h>

#include "hal/model_builder.h"

namespace nncosim::hal {
namespace {

// A valid two-operation model: out = (in + c) + c.
Model validModel() {
  ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, 0.5f, 10);
  const uint32_t c = b.addConstant(OperandType::TENSOR_QUANT8_ASYMM, {1, 4},
                                   std::vector<uint8_t>{1, 2, 3, 4}, 0.5f, 10);
  const uint32_t act = b.addInt32(0);
  const uint32_t t = b.addOperand(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, 0.5f, 10);
  const uint32_t out = b.addOutput(OperandType::TENSOR_QUANT8_ASYMM, {1, 4}, 0.5f, 10);
  b.addOperation(OperationType::ADD, {in, c, act}, {t});
  b.addOperation(OperationType::ADD, {t, c, act}, {out});
  return b.build();
}

// True when some issue mentions every fragment.
bool hasIssue(const Model& m, std::initializer_list<const char*> fragments) {
  for (const auto& i : validateModel(m)) {
    const std::string s = i.str();
    bool all = true;
    for (const char* f : fragments) all = all && s.find(f) != std::string::npos;
    if (all) return true;
  }
  return false;
}

TEST(ValidationTest, ValidModelHasNoIssues) { EXPECT_TRUE(validateModel(validModel()).empty()); }

TEST(ValidationTest, QuantZeroPointRanges) {
  Model m = validModel();
  m.main.operands[0].zeroPoint = 256;
  EXPECT_TRUE(hasIssue(m, {"main operand 0", "zeroPoint 256 outside [0, 255]"}));
  m = validModel();
  m.main.operands[0].type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  m.main.operands[0].zeroPoint = 128;
  EXPECT_TRUE(hasIssue(m, {"main operand 0", "[-128, 127]"}));
  m = validModel();
  m.main.operands[0].type = OperandType::TENSOR_QUANT16_ASYMM;
  m.main.operands[0].zeroPoint = 70000;
  EXPECT_TRUE(hasIssue(m, {"[0, 65535]"}));
  m = validModel();
  m.main.operands[0].type = OperandType::TENSOR_QUANT16_SYMM;
  m.main.operands[0].zeroPoint = 3;
  EXPECT_TRUE(hasIssue(m, {"zeroPoint 3"}));
  m = validModel();
  m.main.operands[0].type = OperandType::TENSOR_QUANT8_SYMM;
  m.main.operands[0].zeroPoint = -1;
  EXPECT_TRUE(hasIssue(m, {"zeroPoint -1"}));
}

TEST(ValidationTest, ScalesMustBeFiniteAndPositive) {
  Model m = validModel();
  m.main.operands[0].scale = 0.0f;
  EXPECT_TRUE(hasIssue(m, {"needs scale > 0"}));
  m.main.operands[0].scale = -1.0f;
  EXPECT_TRUE(hasIssue(m, {"scale is negative"}));
  m.main.operands[0].scale = std::nanf("");
  EXPECT_TRUE(hasIssue(m, {"scale is not finite"}));
}

TEST(ValidationTest, ScalarsHaveNoDimensions) {
  Model m = validModel();
  m.main.operands[2].dimensions = {1};
  EXPECT_TRUE(hasIssue(m, {"main operand 2", "scalar but has 1 dimensions"}));
}

TEST(ValidationTest, ElementCountOverflow) {
  Model m = validModel();
  m.main.operands[3].dimensions = {65536, 65536, 2};
  EXPECT_TRUE(hasIssue(m, {"main operand 3", "overflows"}));
}

TEST(ValidationTest, PerChannelScales) {
  ModelBuilder b;
  const uint32_t w =
      b.addConstant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 1}, std::vector<int8_t>{1, 2});
  b.setChannelQuant(w, {0.5f}, 0);  // one scale for two channels
  Model m = b.build();
  EXPECT_TRUE(hasIssue(m, {"operand 0", "1 per-channel scales but dimension 0 is 2"}));
  m.main.operands[0].channelQuant->channelDim = 5;
  EXPECT_TRUE(hasIssue(m, {"channelDim 5 outside rank 2"}));
  m.main.operands[0].channelQuant.reset();
  EXPECT_TRUE(hasIssue(m, {"needs per-channel quantization parameters"}));
}

TEST(ValidationTest, ConstantBounds) {
  Model m = validModel();
  m.main.operands[1].location.offset = 1000;
  EXPECT_TRUE(hasIssue(m, {"main operand 1", "outside operandValues"}));
  m = validModel();
  m.main.operands[1].location.length = 3;
  EXPECT_TRUE(hasIssue(m, {"holds 3 bytes but its type and dimensions need 4"}));
  m = validModel();
  m.main.operands[1].lifetime = OperandLifeTime::CONSTANT_POOL;
  EXPECT_TRUE(hasIssue(m, {"CONSTANT_REFERENCE to pool 0 but the model has 0 pools"}));
  m.pools.push_back(MemoryPool::fromBytes({1, 2}));
  EXPECT_TRUE(hasIssue(m, {"outside pool 0 (2 bytes)"}));
}

TEST(ValidationTest, IndexesInRange) {
  Model m = validModel();
  m.main.operations[0].inputs[1] = 99;
  EXPECT_TRUE(hasIssue(m, {"main operation 0 (ADD)", "input 1 = operand 99 out of range"}));
  m = validModel();
  m.main.inputIndexes[0] = 42;
  EXPECT_TRUE(hasIssue(m, {"inputIndexes[0] = 42 out of range"}));
}

TEST(ValidationTest, ExecutionOrder) {
  Model m = validModel();
  std::swap(m.main.operations[0], m.main.operations[1]);
  EXPECT_TRUE(hasIssue(m, {"main operation 0", "before any operation writes it"}));
  m = validModel();
  m.main.operations[1].outputs[0] = 3;  // writes the temporary twice, never the output
  EXPECT_TRUE(hasIssue(m, {"writes operand 3 a second time"}));
  EXPECT_TRUE(hasIssue(m, {"main operand 4", "never written"}));
  m = validModel();
  m.main.operations[0].outputs[0] = 1;  // writes a constant
  EXPECT_TRUE(hasIssue(m, {"writes operand 1 whose lifetime is CONSTANT_COPY"}));
}

TEST(ValidationTest, InputsAndOutputsRequired) {
  Model m = validModel();
  m.main.inputIndexes.clear();
  EXPECT_TRUE(hasIssue(m, {"main", "has no inputs"}));
  EXPECT_TRUE(hasIssue(m, {"main operand 0", "SUBGRAPH_INPUT listed 0 times"}));
  m = validModel();
  m.main.outputIndexes.clear();
  EXPECT_TRUE(hasIssue(m, {"has no outputs"}));
}

TEST(ValidationTest, SubgraphReferencesExistAndHaveNoCycles) {
  Model m = validModel();
  Operand sg;
  sg.type = OperandType::SUBGRAPH;
  sg.lifetime = OperandLifeTime::SUBGRAPH;
  sg.location.offset = 3;
  m.main.operands.push_back(sg);
  EXPECT_TRUE(hasIssue(m, {"names subgraph 3 but the model has 0 referenced subgraphs"}));

  // referenced[0] refers to referenced[1], which refers back to referenced[0].
  Model c = validModel();
  Subgraph a = c.main, b = c.main;
  sg.location.offset = 1;
  a.operands.push_back(sg);
  sg.location.offset = 0;
  b.operands.push_back(sg);
  c.referenced = {a, b};
  EXPECT_TRUE(hasIssue(c, {"cycle of subgraph references"}));
}

}  // namespace
}  // namespace nncosim::hal
