// Builtin mappings, end to end on the software reference: single-operator TFLite models
// built here are imported, pass every operation's validation and compute the values
// TFLite computes (padding, strides, fused activations, absent biases, keep_num_dims,
// axes); unmapped options are refused naming the operator.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "hal/tflite/tflite_file.h"
#include "hal/tflite/tflite_import.h"
#include "hal/validation.h"
#include "ops/executor.h"
#include "tflite_subset_generated.h"

namespace nncosim::tflite {
namespace {

using Options = std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>;

struct TensorSpec {
  std::vector<int32_t> shape;
  std::vector<uint8_t> data = {};  // empty: an activation
  fb::TensorType type = fb::TensorType::FLOAT32;
};

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A model of `tensors` with one operator; graph inputs are the activations among opIn,
// the output is opOut.
struct OneOp {
  fb::BuiltinOperator builtin;
  fb::BuiltinOptions optionsType = fb::BuiltinOptions::NONE;
  Options options;
  std::vector<TensorSpec> tensors;
  std::vector<int32_t> opIn, opOut;

  std::vector<uint8_t> build() const {
    flatbuffers::FlatBufferBuilder b;
    std::vector<flatbuffers::Offset<fb::Buffer>> buffers = {fb::CreateBuffer(b)};
    std::vector<flatbuffers::Offset<fb::Tensor>> ts;
    std::vector<int32_t> graphIn;
    for (size_t i = 0; i < tensors.size(); ++i) {
      uint32_t buffer = 0;
      if (!tensors[i].data.empty()) {
        b.ForceVectorAlignment(tensors[i].data.size(), 1, 16);
        buffers.push_back(fb::CreateBuffer(b, b.CreateVector(tensors[i].data)));
        buffer = static_cast<uint32_t>(buffers.size() - 1);
      }
      ts.push_back(fb::CreateTensor(b, b.CreateVector(tensors[i].shape), tensors[i].type, buffer));
    }
    for (int32_t t : opIn)
      if (t >= 0 && tensors[t].data.empty()) graphIn.push_back(t);
    auto opts = options ? options(b) : flatbuffers::Offset<void>();
    auto op =
        fb::CreateOperator(b, 0, b.CreateVector(opIn), b.CreateVector(opOut), optionsType, opts);
    auto g = fb::CreateSubGraph(b, b.CreateVector(ts), b.CreateVector(graphIn),
                                b.CreateVector(opOut), b.CreateVector(std::vector{op}));
    auto code = fb::CreateOperatorCode(b, static_cast<int8_t>(builtin), 0, 1, builtin);
    auto m = fb::CreateModel(b, 3, b.CreateVector(std::vector{code}),
                             b.CreateVector(std::vector{g}), 0, b.CreateVector(buffers));
    fb::FinishModelBuffer(b, m);
    return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  }
};

hal::Result<hal::Model> importBytes(const std::vector<uint8_t>& bytes) {
  auto f = TfliteFile::open(hal::MemoryPool::fromBytes(bytes), "t.tflite");
  if (!f.ok()) return hal::Error{f.error()};
  return importModel(*f, ImportOptions{64, false});
}

// Imports, validates and runs with float inputs; returns every output as floats.
std::vector<std::vector<float>> runFloatOutputs(const OneOp& spec,
                                                const std::vector<std::vector<float>>& inputs,
                                                std::vector<hal::OperationType>* types = nullptr) {
  auto m = importBytes(spec.build());
  EXPECT_TRUE(m.ok()) << m.error();
  if (!m.ok()) return {};
  for (const auto& issue : hal::validateModel(*m)) ADD_FAILURE() << issue.str();
  auto st = ops::validateOperations(*m);
  EXPECT_TRUE(st.ok()) << st.error();
  if (types)
    for (const auto& op : m->main.operations) types->push_back(op.type);
  std::vector<hal::TensorValue> in;
  for (size_t k = 0; k < inputs.size(); ++k) {
    hal::TensorValue v;
    const hal::Operand& o = m->main.operands[m->main.inputIndexes[k]];
    v.type = o.type;
    v.dimensions = o.dimensions;
    v.bytes = bytesOf(inputs[k]);
    in.push_back(std::move(v));
  }
  std::vector<hal::TensorValue> out;
  ops::Executor ex(*m);
  auto r = ex.run(in, out);
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok()) return {};
  std::vector<std::vector<float>> all;
  for (const hal::TensorValue& o : out) {
    std::vector<float> f(o.bytes.size() / 4);
    std::memcpy(f.data(), o.bytes.data(), f.size() * 4);
    all.push_back(std::move(f));
  }
  return all;
}

// The same, output 0.
std::vector<float> runFloat(const OneOp& spec, const std::vector<std::vector<float>>& inputs,
                            std::vector<hal::OperationType>* types = nullptr) {
  const std::vector<std::vector<float>> all = runFloatOutputs(spec, inputs, types);
  return all.empty() ? std::vector<float>{} : all[0];
}

std::string refusal(const OneOp& spec) {
  auto m = importBytes(spec.build());
  return m.ok() ? "accepted" : m.error();
}

std::vector<float> iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

TEST(TfliteBuiltins, AddWithFusedRelu) {
  OneOp s{fb::BuiltinOperator::ADD,
          fb::BuiltinOptions::AddOptions,
          [](auto& b) { return fb::CreateAddOptions(b, fb::ActivationFunctionType::RELU).Union(); },
          {{{1, 4}}, {{1, 4}, bytesOf(std::vector<float>{1, 1, 1, 1})}, {{1, 4}}},
          {0, 1},
          {2}};
  EXPECT_EQ(runFloat(s, {{-3, 2, -1, 4}}), (std::vector<float>{0, 3, 0, 5}));
}

TEST(TfliteBuiltins, Conv2dSameStride2NoBiasPadsAfterAsTflite) {
  // 4x4 input 1..16, 3x3 ones filter, SAME, stride 2: TFLite pads 0 before, 1 after.
  OneOp s{fb::BuiltinOperator::CONV_2D,
          fb::BuiltinOptions::Conv2DOptions,
          [](auto& b) { return fb::CreateConv2DOptions(b, fb::Padding::SAME, 2, 2).Union(); },
          {{{1, 4, 4, 1}}, {{1, 3, 3, 1}, bytesOf(std::vector<float>(9, 1.0f))}, {{1, 2, 2, 1}}},
          {0, 1, -1},
          {2}};
  EXPECT_EQ(runFloat(s, {iota(16)}), (std::vector<float>{54, 45, 72, 54}));
}

TEST(TfliteBuiltins, DepthwiseWithMultiplierAndDilation) {
  // 1 input channel, multiplier 2 (filter [1,2,2,2]), dilation 2, VALID on 3x3: one pixel.
  std::vector<float> w = {1, 10, 0, 0, 0, 0, 1, 10};  // taps (0,0) and (1,1), per output channel
  OneOp s{fb::BuiltinOperator::DEPTHWISE_CONV_2D,
          fb::BuiltinOptions::DepthwiseConv2DOptions,
          [](auto& b) {
            return fb::CreateDepthwiseConv2DOptions(b, fb::Padding::VALID, 1, 1, 2,
                                                    fb::ActivationFunctionType::NONE, 2, 2)
                .Union();
          },
          {{{1, 3, 3, 1}},
           {{1, 2, 2, 2}, bytesOf(w)},
           {{2}, bytesOf(std::vector<float>{0.5f, 0})},
           {{1, 1, 1, 2}}},
          {0, 1, 2},
          {3}};
  // Dilated taps at (0,0) and (2,2): 1 + 9.
  EXPECT_EQ(runFloat(s, {iota(9)}), (std::vector<float>{10.5f, 100}));
}

TEST(TfliteBuiltins, MaxPoolValid) {
  OneOp s{
      fb::BuiltinOperator::MAX_POOL_2D,
      fb::BuiltinOptions::Pool2DOptions,
      [](auto& b) { return fb::CreatePool2DOptions(b, fb::Padding::VALID, 2, 2, 2, 2).Union(); },
      {{{1, 4, 4, 1}}, {{1, 2, 2, 1}}},
      {0},
      {1}};
  EXPECT_EQ(runFloat(s, {iota(16)}), (std::vector<float>{6, 8, 14, 16}));
}

TEST(TfliteBuiltins, FullyConnectedKeepNumDimsAddsReshape) {
  OneOp s{fb::BuiltinOperator::FULLY_CONNECTED,
          fb::BuiltinOptions::FullyConnectedOptions,
          [](auto& b) {
            return fb::CreateFullyConnectedOptions(b, fb::ActivationFunctionType::NONE,
                                                   fb::FullyConnectedOptionsWeightsFormat::DEFAULT,
                                                   true)
                .Union();
          },
          {{{2, 1, 3}}, {{2, 3}, bytesOf(std::vector<float>{1, 0, 0, 0, 1, 1})}, {{2, 1, 2}}},
          {0, 1, -1},
          {2}};
  std::vector<hal::OperationType> types;
  EXPECT_EQ(runFloat(s, {iota(6)}, &types), (std::vector<float>{1, 5, 4, 11}));
  EXPECT_EQ(types, (std::vector{hal::OperationType::FULLY_CONNECTED, hal::OperationType::RESHAPE}));
}

TEST(TfliteBuiltins, SqueezeIsReshape) {
  OneOp s{
      fb::BuiltinOperator::SQUEEZE, fb::BuiltinOptions::NONE, {}, {{{1, 4, 1}}, {{4}}}, {0}, {1}};
  std::vector<hal::OperationType> types;
  EXPECT_EQ(runFloat(s, {iota(4)}, &types), iota(4));
  EXPECT_EQ(types, (std::vector{hal::OperationType::RESHAPE}));
}

TEST(TfliteBuiltins, ConcatenationNegativeAxis) {
  OneOp s{fb::BuiltinOperator::CONCATENATION,
          fb::BuiltinOptions::ConcatenationOptions,
          [](auto& b) { return fb::CreateConcatenationOptions(b, -1).Union(); },
          {{{1, 2}}, {{1, 2}, bytesOf(std::vector<float>{7, 8})}, {{1, 4}}},
          {0, 1},
          {2}};
  EXPECT_EQ(runFloat(s, {{1, 2}}), (std::vector<float>{1, 2, 7, 8}));
}

TEST(TfliteBuiltins, MeanTransposeAndStridedSlice) {
  OneOp mean{
      fb::BuiltinOperator::MEAN,
      fb::BuiltinOptions::ReducerOptions,
      [](auto& b) { return fb::CreateReducerOptions(b, false).Union(); },
      {{{1, 2, 2}}, {{1}, bytesOf(std::vector<int32_t>{1}), fb::TensorType::INT32}, {{1, 2}}},
      {0, 1},
      {2}};
  EXPECT_EQ(runFloat(mean, {{1, 2, 3, 6}}), (std::vector<float>{2, 4}));
  OneOp transpose{
      fb::BuiltinOperator::TRANSPOSE,
      fb::BuiltinOptions::NONE,
      {},
      {{{2, 3}}, {{2}, bytesOf(std::vector<int64_t>{1, 0}), fb::TensorType::INT64}, {{3, 2}}},
      {0, 1},
      {2}};
  EXPECT_EQ(runFloat(transpose, {iota(6)}), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  OneOp slice{fb::BuiltinOperator::STRIDED_SLICE,
              fb::BuiltinOptions::StridedSliceOptions,
              [](auto& b) { return fb::CreateStridedSliceOptions(b, 0, 0, 0, 0, 0).Union(); },
              {{{6}},
               {{1}, bytesOf(std::vector<int32_t>{1}), fb::TensorType::INT32},
               {{1}, bytesOf(std::vector<int32_t>{6}), fb::TensorType::INT32},
               {{1}, bytesOf(std::vector<int32_t>{2}), fb::TensorType::INT32},
               {{3}}},
              {0, 1, 2, 3},
              {4}};
  EXPECT_EQ(runFloat(slice, {iota(6)}), (std::vector<float>{2, 4, 6}));
}

// UNPACK as SPLIT + RESHAPE per output; SPLIT_V as one SLICE per output (a -1 size too).
TEST(TfliteBuiltins, UnpackAndSplitV) {
  OneOp unpack{fb::BuiltinOperator::UNPACK,
               fb::BuiltinOptions::UnpackOptions,
               [](auto& b) { return fb::CreateUnpackOptions(b, 3, -1).Union(); },
               {{{2, 3}}, {{2}}, {{2}}, {{2}}},
               {0},
               {1, 2, 3}};
  std::vector<hal::OperationType> types;
  EXPECT_EQ(runFloatOutputs(unpack, {iota(6)}, &types),
            (std::vector<std::vector<float>>{{1, 4}, {2, 5}, {3, 6}}));
  EXPECT_EQ(types, (std::vector<hal::OperationType>{
                       hal::OperationType::SPLIT, hal::OperationType::RESHAPE,
                       hal::OperationType::RESHAPE, hal::OperationType::RESHAPE}));
  OneOp splitV{fb::BuiltinOperator::SPLIT_V,
               fb::BuiltinOptions::SplitVOptions,
               [](auto& b) { return fb::CreateSplitVOptions(b, 2).Union(); },
               {{{2, 5}},
                {{2}, bytesOf(std::vector<int32_t>{2, -1}), fb::TensorType::INT32},
                {{}, bytesOf(std::vector<int32_t>{1}), fb::TensorType::INT32},
                {{2, 2}},
                {{2, 3}}},
               {0, 1, 2},
               {3, 4}};
  EXPECT_EQ(runFloatOutputs(splitV, {iota(10)}),
            (std::vector<std::vector<float>>{{1, 2, 6, 7}, {3, 4, 5, 8, 9, 10}}));
  OneOp badNum{fb::BuiltinOperator::UNPACK,
               fb::BuiltinOptions::UnpackOptions,
               [](auto& b) { return fb::CreateUnpackOptions(b, 2, 0).Union(); },
               {{{3, 2}}, {{2}}, {{2}}},
               {0},
               {1, 2}};
  EXPECT_NE(refusal(badNum).find("operator 0 (UNPACK): num 2 but the input has 3 along axis 0"),
            std::string::npos)
      << refusal(badNum);
  OneOp badCover{fb::BuiltinOperator::SPLIT_V,
                 fb::BuiltinOptions::SplitVOptions,
                 [](auto& b) { return fb::CreateSplitVOptions(b, 2).Union(); },
                 {{{5}},
                  {{2}, bytesOf(std::vector<int32_t>{1, 1}), fb::TensorType::INT32},
                  {{}, bytesOf(std::vector<int32_t>{0}), fb::TensorType::INT32},
                  {{1}},
                  {{1}}},
                 {0, 1, 2},
                 {3, 4}};
  EXPECT_NE(refusal(badCover).find("the outputs cover 2 of the input's 5 along axis 0"),
            std::string::npos)
      << refusal(badCover);
}

TEST(TfliteBuiltins, UnmappedOptionsRefusedNamingTheOperator) {
  OneOp concatRelu{
      fb::BuiltinOperator::CONCATENATION,
      fb::BuiltinOptions::ConcatenationOptions,
      [](auto& b) {
        return fb::CreateConcatenationOptions(b, 1, fb::ActivationFunctionType::RELU).Union();
      },
      {{{1, 2}}, {{1, 2}}, {{1, 4}}},
      {0, 1},
      {2}};
  EXPECT_NE(refusal(concatRelu).find("operator 0 (CONCATENATION): a fused activation"),
            std::string::npos)
      << refusal(concatRelu);
  OneOp convTanh{fb::BuiltinOperator::CONV_2D,
                 fb::BuiltinOptions::Conv2DOptions,
                 [](auto& b) {
                   return fb::CreateConv2DOptions(b, fb::Padding::VALID, 1, 1,
                                                  fb::ActivationFunctionType::TANH)
                       .Union();
                 },
                 {{{1, 1, 1, 1}}, {{1, 1, 1, 1}, bytesOf(std::vector<float>{1})}, {{1, 1, 1, 1}}},
                 {0, 1, -1},
                 {2}};
  EXPECT_NE(
      refusal(convTanh).find("operator 0 (CONV_2D): fused activation TANH has no NNAPI FuseCode"),
      std::string::npos)
      << refusal(convTanh);
  OneOp wrongOptions{
      fb::BuiltinOperator::CONV_2D,
      fb::BuiltinOptions::Pool2DOptions,
      [](auto& b) { return fb::CreatePool2DOptions(b).Union(); },
      {{{1, 1, 1, 1}}, {{1, 1, 1, 1}, bytesOf(std::vector<float>{1})}, {{1, 1, 1, 1}}},
      {0, 1, -1},
      {2}};
  EXPECT_NE(
      refusal(wrongOptions).find("builtin_options: expected Conv2DOptions, found Pool2DOptions"),
      std::string::npos)
      << refusal(wrongOptions);
  OneOp ellipsis{fb::BuiltinOperator::STRIDED_SLICE,
                 fb::BuiltinOptions::StridedSliceOptions,
                 [](auto& b) { return fb::CreateStridedSliceOptions(b, 0, 0, 1, 0, 0).Union(); },
                 {{{6}},
                  {{1}, bytesOf(std::vector<int32_t>{1}), fb::TensorType::INT32},
                  {{1}, bytesOf(std::vector<int32_t>{6}), fb::TensorType::INT32},
                  {{1}, bytesOf(std::vector<int32_t>{2}), fb::TensorType::INT32},
                  {{3}}},
                 {0, 1, 2, 3},
                 {4}};
  EXPECT_NE(refusal(ellipsis).find("operator 0 (STRIDED_SLICE): ellipsis_mask 1"),
            std::string::npos)
      << refusal(ellipsis);
}

}  // namespace
}  // namespace nncosim::tflite
