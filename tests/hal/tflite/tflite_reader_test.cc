// The TFLite reader on hostile and broken input: every file passes the flatbuffers
// verifier first, every index is range-checked, and each error names what is wrong and
// where. The models are built here with the generated flatbuffers builder.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hal/tflite/tflite_file.h"
#include "hal/tflite/tflite_import.h"
#include "hal/validation.h"
#include "tflite_subset_generated.h"

namespace nncosim::tflite {
namespace {

// A one-operator model: out = ADD(in, constant), float32 [1, 4]. Each field can be broken.
struct Spec {
  int32_t builtin = static_cast<int32_t>(fb::BuiltinOperator::ADD);
  std::string custom;
  uint32_t opcodeIndex = 0;
  std::vector<int32_t> opInputs = {0, 2};
  std::vector<int32_t> opOutputs = {1};
  std::vector<int32_t> graphInputs = {0};
  std::vector<int32_t> graphOutputs = {1};
  uint32_t constBuffer = 1;
  size_t constBytes = 16;
  std::vector<int32_t> constShape = {1, 4};
  fb::TensorType constType = fb::TensorType::FLOAT32;
};

std::vector<uint8_t> build(const Spec& s) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensor(b, b.CreateVector(std::vector<int32_t>{1, 4}), fb::TensorType::FLOAT32, 0,
                       b.CreateString("in")),
      fb::CreateTensor(b, b.CreateVector(std::vector<int32_t>{1, 4}), fb::TensorType::FLOAT32, 0,
                       b.CreateString("out")),
      fb::CreateTensor(b, b.CreateVector(s.constShape), s.constType, s.constBuffer,
                       b.CreateString("k")),
  };
  auto options = fb::CreateAddOptions(b).Union();
  std::vector<flatbuffers::Offset<fb::Operator>> ops = {
      fb::CreateOperator(b, s.opcodeIndex, b.CreateVector(s.opInputs), b.CreateVector(s.opOutputs),
                         fb::BuiltinOptions::AddOptions, options)};
  auto graph = fb::CreateSubGraph(b, b.CreateVector(tensors), b.CreateVector(s.graphInputs),
                                  b.CreateVector(s.graphOutputs), b.CreateVector(ops));
  const int8_t deprecated = static_cast<int8_t>(s.builtin < 127 ? s.builtin : 127);
  auto code = fb::CreateOperatorCode(b, deprecated, s.custom.empty() ? 0 : b.CreateString(s.custom),
                                     1, static_cast<fb::BuiltinOperator>(s.builtin));
  b.ForceVectorAlignment(s.constBytes, 1, 16);
  std::vector<uint8_t> bytes(s.constBytes, 0);
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) bytes[i + 3] = 0x3f;  // 0.5f
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {
      fb::CreateBuffer(b), fb::CreateBuffer(b, b.CreateVector(bytes))};
  auto model = fb::CreateModel(b, 3, b.CreateVector(std::vector{code}),
                               b.CreateVector(std::vector{graph}), 0, b.CreateVector(buffers));
  fb::FinishModelBuffer(b, model);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

hal::Result<hal::Model> import(const std::vector<uint8_t>& bytes) {
  auto f = TfliteFile::open(hal::MemoryPool::fromBytes(bytes), "m.tflite");
  if (!f.ok()) return hal::Error{f.error()};
  return importModel(*f);
}

void expectError(const Spec& s, const std::string& fragment) {
  auto m = import(build(s));
  ASSERT_FALSE(m.ok()) << "accepted; wanted an error with " << fragment;
  EXPECT_NE(m.error().find(fragment), std::string::npos) << m.error();
}

TEST(TfliteReader, ValidModelImports) {
  auto m = import(build(Spec{}));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE(hal::validateModel(*m).empty());
  ASSERT_EQ(m->main.operations.size(), 1u);
  EXPECT_EQ(m->main.operations[0].type, hal::OperationType::ADD);
  EXPECT_EQ(m->main.inputIndexes.size(), 1u);
  EXPECT_EQ(m->main.outputIndexes.size(), 1u);
}

TEST(TfliteReader, LargeConstantsReferenceTheFileWithoutCopy) {
  Spec s;
  s.constShape = {1, 64};
  s.constBytes = 256;
  const auto bytes = build(s);
  auto f = TfliteFile::open(hal::MemoryPool::fromBytes(bytes), "m.tflite");
  ASSERT_TRUE(f.ok()) << f.error();
  auto m = importModel(*f);
  ASSERT_TRUE(m.ok()) << m.error();  // ADD's shapes broadcast [1,4] + [1,64] fail later, not here
  ASSERT_EQ(m->pools.size(), 1u);
  EXPECT_EQ(m->pools[0].data(), f->bytes().data());  // the pool is the file itself
  bool found = false;
  for (const auto& o : m->main.operands)
    if (o.lifetime == hal::OperandLifeTime::CONSTANT_POOL) {
      found = true;
      EXPECT_EQ(o.location.length, 256u);
    }
  EXPECT_TRUE(found);
}

TEST(TfliteReader, NotTfliteAndTruncatedFilesAreRejected) {
  const auto good = build(Spec{});
  auto junk = import(std::vector<uint8_t>(64, 0x11));
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().find("TFL3"), std::string::npos) << junk.error();
  for (size_t n : {size_t{0}, size_t{7}, size_t{12}, good.size() / 2, good.size() - 4}) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto m = import(cut);
    ASSERT_FALSE(m.ok()) << "truncated to " << n << " bytes was accepted";
    EXPECT_EQ(m.error().rfind("m.tflite: ", 0), 0u) << m.error();
  }
}

TEST(TfliteReader, BadOffsetsFailVerification) {
  auto bytes = build(Spec{});
  auto rootOut = bytes;
  rootOut[0] = 0xf0;  // root table offset far outside the file
  rootOut[1] = 0xff;
  auto m = import(rootOut);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("does not verify"), std::string::npos) << m.error();
  // Corrupting every 4-byte word in turn must never crash; most are caught by the verifier.
  for (size_t i = 8; i + 4 <= bytes.size(); i += 4) {
    auto b = bytes;
    b[i] ^= 0xff;
    b[i + 1] ^= 0x7f;
    (void)import(b);
  }
}

TEST(TfliteReader, OperatorTensorIndexOutOfRange) {
  Spec s;
  s.opInputs = {0, 7};
  expectError(s, "subgraphs[0].operators[0].inputs[1]: tensor index 7 outside [0, 3)");
  s = Spec{};
  s.opOutputs = {-1};
  expectError(s, "subgraphs[0].operators[0].outputs[0]: tensor index -1 outside [0, 3)");
}

TEST(TfliteReader, GraphInputOutputIndexOutOfRange) {
  Spec s;
  s.graphInputs = {3};
  expectError(s, "subgraphs[0].inputs[0]: tensor index 3 outside [0, 3)");
  s = Spec{};
  s.graphOutputs = {-2};
  expectError(s, "subgraphs[0].outputs[0]: tensor index -2 outside [0, 3)");
}

TEST(TfliteReader, BufferIndexOutOfRange) {
  Spec s;
  s.constBuffer = 9;
  expectError(s, "subgraphs[0].tensors[2].buffer: index 9 outside [0, 2)");
}

TEST(TfliteReader, OpcodeIndexOutOfRange) {
  Spec s;
  s.opcodeIndex = 4;
  expectError(s, "subgraphs[0].operators[0].opcode_index: 4 outside [0, 1)");
}

TEST(TfliteReader, NegativeShapeRejected) {
  Spec s;
  s.constShape = {1, -4};
  expectError(s, "subgraphs[0].tensors[2].shape[1]: dimension -4 is negative");
}

TEST(TfliteReader, BufferSizeMustMatchShape) {
  Spec s;
  s.constBytes = 12;
  expectError(s, "operator 0 (ADD): input 1: tensor 2 (k): buffer 1 holds 12 bytes");
}

TEST(TfliteReader, CustomOperatorRefusedByName) {
  Spec s;
  s.builtin = static_cast<int32_t>(fb::BuiltinOperator::CUSTOM);
  s.custom = "ethos-u";
  expectError(s, "operator 0 (CUSTOM 'ethos-u'): custom operators have no NNAPI equivalent");
}

TEST(TfliteReader, UnmappedBuiltinRefusedByName) {
  Spec s;
  s.builtin = static_cast<int32_t>(fb::BuiltinOperator::GELU);
  expectError(s, "operator 0 (GELU): no NNAPI mapping");
  s.builtin = 400;  // beyond every builtin this schema knows
  expectError(s, "operator 0 (builtin 400): no NNAPI mapping");
}

TEST(TfliteReader, UnsupportedTypeRefusedNamingTheTensor) {
  Spec s;
  s.constType = fb::TensorType::COMPLEX64;
  expectError(s, "operator 0 (ADD): input 1: tensor 2 (k): COMPLEX64 tensors have no NNAPI type");
}

}  // namespace
}  // namespace nncosim::tflite
