// IF and WHILE through the executor: branch choice, loop-carried and state values, the
// iteration limit, and the signature checks against the referenced subgraphs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ops/executor.h"

namespace nncosim::ops {
namespace {

using hal::OperandLifeTime;
using hal::OperandType;
using hal::OperationType;

// Builds subgraphs operand by operand.
struct Graph {
  hal::Model* model;
  hal::Subgraph* g;
  uint32_t operand(OperandType t, std::vector<uint32_t> dims,
                   OperandLifeTime life = OperandLifeTime::TEMPORARY_VARIABLE) {
    hal::Operand o;
    o.type = t;
    o.dimensions = std::move(dims);
    o.lifetime = life;
    g->operands.push_back(o);
    const auto i = static_cast<uint32_t>(g->operands.size() - 1);
    if (life == OperandLifeTime::SUBGRAPH_INPUT) g->inputIndexes.push_back(i);
    if (life == OperandLifeTime::SUBGRAPH_OUTPUT) g->outputIndexes.push_back(i);
    return i;
  }
  uint32_t input(OperandType t, std::vector<uint32_t> dims) {
    return operand(t, std::move(dims), OperandLifeTime::SUBGRAPH_INPUT);
  }
  uint32_t output(OperandType t, std::vector<uint32_t> dims) {
    return operand(t, std::move(dims), OperandLifeTime::SUBGRAPH_OUTPUT);
  }
  uint32_t constant(OperandType t, std::vector<uint32_t> dims, const void* data, size_t size) {
    const uint32_t i = operand(t, std::move(dims), OperandLifeTime::CONSTANT_COPY);
    auto& values = model->operandValues;
    const size_t at = (values.size() + 7) & ~size_t{7};
    values.resize(at + size);
    std::memcpy(values.data() + at, data, size);
    g->operands[i].location =
        hal::DataLocation{0, static_cast<uint32_t>(at), static_cast<uint32_t>(size)};
    return i;
  }
  uint32_t int32(int32_t v) { return constant(OperandType::INT32, {}, &v, 4); }
  uint32_t boolTensor(bool v) {
    const uint8_t b = v;
    return constant(OperandType::TENSOR_BOOL8, {1}, &b, 1);
  }
  uint32_t floatTensor(float v) { return constant(OperandType::TENSOR_FLOAT32, {1}, &v, 4); }
  uint32_t subgraph(uint32_t index) {
    const uint32_t i = operand(OperandType::SUBGRAPH, {}, OperandLifeTime::SUBGRAPH);
    g->operands[i].location.offset = index;
    return i;
  }
  void op(OperationType t, std::vector<uint32_t> in, std::vector<uint32_t> out) {
    g->operations.push_back(hal::Operation{t, std::move(in), std::move(out)});
  }
};

Graph mainGraph(hal::Model& m) { return Graph{&m, &m.main}; }
Graph newReferenced(hal::Model& m) {
  m.referenced.emplace_back();
  return Graph{&m, &m.referenced.back()};
}

hal::TensorValue floats(std::vector<float> v, std::vector<uint32_t> dims) {
  hal::TensorValue t;
  t.type = OperandType::TENSOR_FLOAT32;
  t.dimensions = std::move(dims);
  t.bytes.resize(v.size() * 4);
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}
hal::TensorValue boolValue(bool b) {
  hal::TensorValue t;
  t.type = OperandType::TENSOR_BOOL8;
  t.dimensions = {1};
  t.bytes = {static_cast<uint8_t>(b)};
  return t;
}
std::vector<float> asFloats(const hal::TensorValue& t) {
  std::vector<float> v(t.bytes.size() / 4);
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

// Referenced subgraph: out = x + c (op ADD) or x - c (op SUB), on [2] floats.
void addBranch(hal::Model& m, OperationType type, float c) {
  Graph b = newReferenced(m);
  const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t k = b.floatTensor(c);
  const uint32_t act = b.int32(0);
  const uint32_t out = b.output(OperandType::TENSOR_FLOAT32, {2});
  b.op(type, {x, k, act}, {out});
}

// main: y = IF(cond, then: x + 10, else: x - 10); the output is declared with unknown size.
hal::Model ifModel() {
  hal::Model m;
  addBranch(m, OperationType::ADD, 10.0f);
  addBranch(m, OperationType::SUB, 10.0f);
  Graph g = mainGraph(m);
  const uint32_t cond = g.input(OperandType::TENSOR_BOOL8, {1});
  const uint32_t x = g.input(OperandType::TENSOR_FLOAT32, {2});
  const uint32_t y = g.output(OperandType::TENSOR_FLOAT32, {0});
  g.op(OperationType::IF, {cond, g.subgraph(0), g.subgraph(1), x}, {y});
  return m;
}

Status runModel(const hal::Model& m, std::vector<hal::TensorValue> in,
                std::vector<hal::TensorValue>& out, ExecutionOptions opts = {}) {
  NNC_TRY(validateOperations(m));
  Executor ex(m, opts);
  return ex.run(in, out);
}

TEST(If, RunsTheChosenBranch) {
  const hal::Model m = ifModel();
  std::vector<hal::TensorValue> out;
  auto st = runModel(m, {boolValue(true), floats({1, 2}, {2})}, out);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(out[0].dimensions, (std::vector<uint32_t>{2}));
  EXPECT_EQ(asFloats(out[0]), (std::vector<float>{11, 12}));
  st = runModel(m, {boolValue(false), floats({1, 2}, {2})}, out);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(asFloats(out[0]), (std::vector<float>{-9, -8}));
}

TEST(If, RejectsNonBoolCondition) {
  hal::Model m = ifModel();
  m.main.operands[0].type = OperandType::TENSOR_INT32;
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("input 0 (condition): expected TENSOR_BOOL8"), std::string::npos)
      << st.error();
}

TEST(If, RejectsConditionOfTwoElements) {
  hal::Model m = ifModel();
  m.main.operands[0].dimensions = {2};
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("expected dimensions [1]"), std::string::npos) << st.error();
}

TEST(If, RejectsOmittedCondition) {
  hal::Model m = ifModel();
  m.main.operands[0].lifetime = OperandLifeTime::NO_VALUE;
  m.main.inputIndexes.erase(m.main.inputIndexes.begin());
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("must not be omitted"), std::string::npos) << st.error();
}

TEST(If, RejectsMissingSubgraph) {
  hal::Model m = ifModel();
  m.main.operands[m.main.operations[0].inputs[2]].location.offset = 7;
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("subgraph 7 does not exist"), std::string::npos) << st.error();
}

TEST(If, RejectsBranchTypeMismatch) {
  hal::Model m = ifModel();
  hal::Subgraph& els = m.referenced[1];
  els.operands[els.inputIndexes[0]].type = OperandType::TENSOR_FLOAT16;
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("input 3 vs else branch input 0: type TENSOR_FLOAT32"),
            std::string::npos)
      << st.error();
}

TEST(If, RejectsBranchShapeAndCountMismatch) {
  hal::Model m = ifModel();
  m.referenced[0].operands[m.referenced[0].inputIndexes[0]].dimensions = {3};
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("dimensions [2] but the subgraph declares [3]"), std::string::npos)
      << st.error();
  m = ifModel();
  m.main.operations[0].inputs.push_back(m.main.operations[0].inputs.back());
  st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("has 1 inputs, but IF passes it 2"), std::string::npos) << st.error();
}

// WHILE with loop-carried x ([1] float), state flag (bool8) and input-only step:
// condition = flag; body: x' = x + step, flag' = `nextFlag` (a constant, which only a
// hand-built model can use as a subgraph output).
hal::Model whileModel(bool nextFlag, bool flagFromInput = true) {
  hal::Model m;
  {
    Graph c = newReferenced(m);  // 0: condition, outputs its flag input
    c.input(OperandType::TENSOR_FLOAT32, {1});
    const uint32_t flag = c.input(OperandType::TENSOR_BOOL8, {1});
    c.input(OperandType::TENSOR_FLOAT32, {1});
    c.g->outputIndexes.push_back(flag);
  }
  {
    Graph b = newReferenced(m);  // 1: body
    const uint32_t x = b.input(OperandType::TENSOR_FLOAT32, {1});
    const uint32_t flag = b.input(OperandType::TENSOR_BOOL8, {1});
    const uint32_t step = b.input(OperandType::TENSOR_FLOAT32, {1});
    const uint32_t act = b.int32(0);
    const uint32_t x2 = b.output(OperandType::TENSOR_FLOAT32, {1});
    b.op(OperationType::ADD, {x, step, act}, {x2});
    b.g->outputIndexes.push_back(flagFromInput ? flag : b.boolTensor(nextFlag));
  }
  Graph g = mainGraph(m);
  const uint32_t x = g.input(OperandType::TENSOR_FLOAT32, {1});
  const uint32_t flag = g.input(OperandType::TENSOR_BOOL8, {1});
  const uint32_t step = g.input(OperandType::TENSOR_FLOAT32, {1});
  const uint32_t y = g.output(OperandType::TENSOR_FLOAT32, {1});
  g.op(OperationType::WHILE, {g.subgraph(0), g.subgraph(1), x, flag, step}, {y});
  return m;
}

TEST(While, ConditionFalseAtOnceOutputsTheInput) {
  const hal::Model m = whileModel(false);
  std::vector<hal::TensorValue> out;
  auto st = runModel(m, {floats({5}, {1}), boolValue(false), floats({2}, {1})}, out);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(asFloats(out[0]), (std::vector<float>{5}));
}

TEST(While, StateValueEndsTheLoop) {
  const hal::Model m = whileModel(false, /*flagFromInput=*/false);
  std::vector<hal::TensorValue> out;
  auto st = runModel(m, {floats({5}, {1}), boolValue(true), floats({2}, {1})}, out);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(asFloats(out[0]), (std::vector<float>{7}));  // one body run
}

TEST(While, RunawayLoopFailsCleanlyAtTheLimit) {
  const hal::Model m = whileModel(true);
  std::vector<hal::TensorValue> out;
  ExecutionOptions opts;
  opts.maxWhileIterations = 50;
  auto st = runModel(m, {floats({0}, {1}), boolValue(true), floats({1}, {1})}, out, opts);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("did not end within 50 iterations"), std::string::npos) << st.error();
}

TEST(While, RejectsNonBoolConditionOutput) {
  hal::Model m = whileModel(false);
  Graph c{&m, &m.referenced[0]};
  const int32_t one = 1;
  c.g->outputIndexes[0] = c.constant(OperandType::TENSOR_INT32, {1}, &one, 4);
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("condition output 0: expected TENSOR_BOOL8"), std::string::npos)
      << st.error();
}

TEST(While, RejectsBodyWithTooManyOutputs) {
  hal::Model m = whileModel(false);
  hal::Subgraph& b = m.referenced[1];
  b.outputIndexes.push_back(b.inputIndexes[2]);
  b.outputIndexes.push_back(b.inputIndexes[2]);
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("more than its 3 inputs"), std::string::npos) << st.error();
}

TEST(While, RejectsBodyFeedbackMismatch) {
  hal::Model m = whileModel(false);
  hal::Subgraph& b = m.referenced[1];
  b.operands[b.outputIndexes[0]].scale = 0.5f;  // body output 0 cannot feed body input 0
  m.main.operands[m.main.outputIndexes[0]].scale = 0.5f;
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("body input 0 vs body output 0: scale 0"), std::string::npos)
      << st.error();
}

TEST(While, RejectsConditionInputCountMismatch) {
  hal::Model m = whileModel(false);
  m.main.operations[0].inputs.pop_back();
  auto st = validateOperations(m);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("condition (subgraph 0) has 3 inputs, but WHILE passes it 2"),
            std::string::npos)
      << st.error();
}

}  // namespace
}  // namespace nncosim::ops
