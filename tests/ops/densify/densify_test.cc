// DENSIFY through the executor: element types, omitted metadata and bad metadata values
// arriving as model inputs (errors, never out-of-bounds accesses).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ops/executor.h"

namespace nncosim::ops {
namespace {

using hal::OperandLifeTime;
using hal::OperandType;

hal::TensorValue int32Value(const std::vector<int32_t>& v) {
  hal::TensorValue t;
  t.type = OperandType::TENSOR_INT32;
  t.dimensions = {static_cast<uint32_t>(v.size())};
  t.bytes.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  if (v.empty()) t.omitted = true;
  return t;
}

// A DENSIFY model whose values and metadata are all model inputs, so each run can pass
// different (also invalid) metadata. `levels` fixes the input count.
struct DensifyModel {
  hal::Model model;
  DensifyModel(OperandType type, size_t levels, std::vector<uint32_t> outDims, float scale = 0.0f,
               int32_t zeroPoint = 0) {
    auto& g = model.main;
    auto add = [&](OperandType t, std::vector<uint32_t> dims, OperandLifeTime life) {
      hal::Operand o;
      o.type = t;
      o.dimensions = std::move(dims);
      o.lifetime = life;
      if (t == type) {
        o.scale = scale;
        o.zeroPoint = zeroPoint;
      }
      g.operands.push_back(o);
      return static_cast<uint32_t>(g.operands.size() - 1);
    };
    std::vector<uint32_t> inputs;
    inputs.push_back(add(type, {0}, OperandLifeTime::SUBGRAPH_INPUT));
    for (size_t i = 0; i < 4 + 2 * levels; ++i)
      inputs.push_back(add(OperandType::TENSOR_INT32, {0}, OperandLifeTime::SUBGRAPH_INPUT));
    const uint32_t out = add(type, std::move(outDims), OperandLifeTime::SUBGRAPH_OUTPUT);
    g.operations.push_back(hal::Operation{hal::OperationType::DENSIFY, inputs, {out}});
    g.inputIndexes = inputs;
    g.outputIndexes = {out};
  }
};

struct Metadata {
  std::vector<int32_t> order, blockMap, format, dims;
  std::vector<std::vector<int32_t>> arrays;  // segments, indices per level
};

template <typename T>
hal::Status run(const DensifyModel& m, OperandType type, const std::vector<T>& values,
                const Metadata& md, std::vector<T>* out, std::vector<uint32_t>* outDims = nullptr) {
  std::vector<hal::TensorValue> in;
  hal::TensorValue v;
  v.type = type;
  v.dimensions = {static_cast<uint32_t>(values.size())};
  v.bytes.resize(values.size() * sizeof(T));
  std::memcpy(v.bytes.data(), values.data(), v.bytes.size());
  in.push_back(v);
  for (const auto* a : {&md.order, &md.blockMap, &md.format, &md.dims})
    in.push_back(int32Value(*a));
  for (const auto& a : md.arrays) in.push_back(int32Value(a));
  std::vector<hal::TensorValue> outputs;
  Executor ex(m.model);
  hal::Status st = ex.run(in, outputs);
  if (!st.ok()) return st;
  out->resize(outputs[0].bytes.size() / sizeof(T));
  std::memcpy(out->data(), outputs[0].bytes.data(), outputs[0].bytes.size());
  if (outDims) *outDims = outputs[0].dimensions;
  return st;
}

Metadata csr3x4() {
  return Metadata{{0, 1}, {}, {0, 1}, {3, 4}, {{}, {}, {0, 2, 2, 4}, {0, 2, 1, 3}}};
}

TEST(Densify, Float32Csr) {
  DensifyModel m(OperandType::TENSOR_FLOAT32, 2, {0, 0});
  std::vector<float> out;
  std::vector<uint32_t> dims;
  auto st = run<float>(m, OperandType::TENSOR_FLOAT32, {1, 2, 3, 4}, csr3x4(), &out, &dims);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(dims, (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(out, (std::vector<float>{1, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 4}));
}

TEST(Densify, Quant8FillsWithZeroPoint) {
  DensifyModel m(OperandType::TENSOR_QUANT8_ASYMM, 2, {3, 4}, 0.5f, 7);
  std::vector<uint8_t> out;
  auto st = run<uint8_t>(m, OperandType::TENSOR_QUANT8_ASYMM, {1, 2, 3, 4}, csr3x4(), &out);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 7, 2, 7, 7, 7, 7, 7, 7, 3, 7, 4}));
}

TEST(Densify, Quant16SymmFillsWithZero) {
  DensifyModel m(OperandType::TENSOR_QUANT16_SYMM, 2, {3, 4}, 0.25f, 0);
  std::vector<int16_t> out;
  auto st = run<int16_t>(m, OperandType::TENSOR_QUANT16_SYMM, {-1, 2, -3, 4}, csr3x4(), &out);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_EQ(out, (std::vector<int16_t>{-1, 0, 2, 0, 0, 0, 0, 0, 0, -3, 0, 4}));
}

TEST(Densify, RejectsValueCountMismatch) {
  DensifyModel m(OperandType::TENSOR_FLOAT32, 2, {3, 4});
  std::vector<float> out;
  auto st = run<float>(m, OperandType::TENSOR_FLOAT32, {1, 2, 3}, csr3x4(), &out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("holds 3 values but the sparsity metadata stores 4"), std::string::npos)
      << st.error();
}

TEST(Densify, RejectsOutOfRangeIndexAsInput) {
  DensifyModel m(OperandType::TENSOR_FLOAT32, 2, {3, 4});
  Metadata md = csr3x4();
  md.arrays[3] = {0, 2, 1, 1000000};
  std::vector<float> out;
  auto st = run<float>(m, OperandType::TENSOR_FLOAT32, {1, 2, 3, 4}, md, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("array index 3 is 1000000"), std::string::npos) << st.error();
}

TEST(Densify, RejectsHugeSegmentValues) {
  DensifyModel m(OperandType::TENSOR_FLOAT32, 2, {3, 4});
  Metadata md = csr3x4();
  md.arrays[2] = {0, 2, 2, 2000000000};
  std::vector<float> out;
  auto st = run<float>(m, OperandType::TENSOR_FLOAT32, {1, 2, 3, 4}, md, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("array segments end at 2000000000"), std::string::npos) << st.error();
}

TEST(Densify, RejectsWrongInputCount) {
  DensifyModel m(OperandType::TENSOR_FLOAT32, 3, {3, 4});  // 11 inputs for a 2-level format
  Metadata md = csr3x4();
  md.arrays.push_back({});
  md.arrays.push_back({});
  std::vector<float> out;
  auto st = run<float>(m, OperandType::TENSOR_FLOAT32, {1, 2, 3, 4}, md, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("needs 9 inputs"), std::string::npos) << st.error();
}

TEST(Densify, RejectsDeclaredShapeMismatch) {
  DensifyModel m(OperandType::TENSOR_FLOAT32, 2, {4, 3});
  std::vector<float> out;
  auto st = run<float>(m, OperandType::TENSOR_FLOAT32, {1, 2, 3, 4}, csr3x4(), &out);
  EXPECT_FALSE(st.ok());
}

TEST(Densify, ValidatesConstantMetadataBeforeExecution) {
  // The metadata as constants, with a traversal order of [0, 0]: validateOperations rejects
  // the model before anything runs.
  DensifyModel m(OperandType::TENSOR_FLOAT32, 2, {3, 4});
  auto& g = m.model.main;
  const Metadata md{{0, 0}, {}, {0, 1}, {3, 4}, {{}, {}, {0, 2, 2, 4}, {0, 2, 1, 3}}};
  std::vector<const std::vector<int32_t>*> arrays = {&md.order, &md.blockMap, &md.format, &md.dims};
  for (const auto& a : md.arrays) arrays.push_back(&a);
  for (size_t i = 0; i < arrays.size(); ++i) {
    hal::Operand& o = g.operands[g.operations[0].inputs[1 + i]];
    o.dimensions = {static_cast<uint32_t>(arrays[i]->size())};
    if (arrays[i]->empty()) {
      o.lifetime = OperandLifeTime::NO_VALUE;
      continue;
    }
    o.lifetime = OperandLifeTime::CONSTANT_COPY;
    const uint32_t at = static_cast<uint32_t>(m.model.operandValues.size());
    const uint32_t size = static_cast<uint32_t>(arrays[i]->size() * 4);
    m.model.operandValues.resize(at + size);
    std::memcpy(m.model.operandValues.data() + at, arrays[i]->data(), size);
    o.location = hal::DataLocation{0, at, size};
  }
  g.inputIndexes.resize(1);
  auto st = validateOperations(m.model);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("repeats dimension 0"), std::string::npos) << st.error();
}

}  // namespace
}  // namespace nncosim::ops
