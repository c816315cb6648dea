// The random-layer generator of nncosim difftest: deterministic in the seed, every
// operation type, valid NPU-eligible models, outputs that are not saturated; and the
// differential runner on the ISA interpreter.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "driver/api/nnapi_driver.h"
#include "driver/runtime/interpreter_device.h"
#include "driver/compiler/partitioner.h"
#include "verify/difftest/difftest.h"
#include "verify/difftest/random_layers.h"

namespace nncosim::verify::difftest {
namespace {

using driver::DriverOptions;
using driver::InterpreterDevice;
using driver::NnapiDriver;
using driver::NpuConfig;

// Byte-level identity of two models: operands, values, operations.
void expectSameModel(const hal::Model& a, const hal::Model& b, const std::string& what) {
  ASSERT_EQ(a.main.operands.size(), b.main.operands.size()) << what;
  for (size_t i = 0; i < a.main.operands.size(); ++i) {
    const hal::Operand& x = a.main.operands[i];
    const hal::Operand& y = b.main.operands[i];
    EXPECT_EQ(x.type, y.type) << what << " operand " << i;
    EXPECT_EQ(x.dimensions, y.dimensions) << what << " operand " << i;
    EXPECT_EQ(x.scale, y.scale) << what << " operand " << i;
    EXPECT_EQ(x.zeroPoint, y.zeroPoint) << what << " operand " << i;
  }
  EXPECT_EQ(a.operandValues, b.operandValues) << what;
  ASSERT_EQ(a.main.operations.size(), b.main.operations.size()) << what;
  for (size_t i = 0; i < a.main.operations.size(); ++i) {
    EXPECT_EQ(a.main.operations[i].type, b.main.operations[i].type) << what;
    EXPECT_EQ(a.main.operations[i].inputs, b.main.operations[i].inputs) << what;
  }
}

TEST(Difftest, GeneratorIsDeterministicInTheSeed) {
  for (uint64_t i = 0; i < 50; ++i) {
    const uint64_t seed = layerSeed(7, i);
    const RandomLayer a = randomLayer(seed), b = randomLayer(seed);
    EXPECT_EQ(a.seed, seed);
    EXPECT_EQ(a.description, b.description);
    EXPECT_EQ(a.type, b.type);
    expectSameModel(a.model, b.model, a.description);
    ASSERT_EQ(a.inputs.size(), b.inputs.size());
    for (size_t k = 0; k < a.inputs.size(); ++k) EXPECT_EQ(a.inputs[k].bytes, b.inputs[k].bytes);
  }
  // Different seeds and indexes give different layers.
  EXPECT_NE(layerSeed(1, 0), layerSeed(1, 1));
  EXPECT_NE(layerSeed(1, 0), layerSeed(2, 0));
  std::set<std::string> descriptions;
  for (uint64_t i = 0; i < 100; ++i) descriptions.insert(randomLayer(layerSeed(3, i)).description);
  EXPECT_GT(descriptions.size(), 95u);
}

// What the generator covers in 2000 layers: every type and every parameter family.
TEST(Difftest, GeneratorCoversEveryOperationAndParameter) {
  std::map<hal::OperationType, int> types;
  std::map<std::string, int> features;
  for (uint64_t i = 0; i < 2000; ++i) {
    const RandomLayer L = randomLayer(layerSeed(11, i));
    ++types[L.type];
    const std::string& d = L.description;
    for (const char* f :
         {" s8",        " u8",          "per-channel", "per-tensor",    "NCHW",
          "NHWC",       "pad explicit", "pad SAME",    "pad VALID",     "act NONE",
          "act RELU ",  "act RELU1",    "act RELU6",   "mult 2",        "mult 3",
          "mult 4",     "dilation 2x",  "dilation 3x", "stride 2x",     "stride 3x",
          "(constant)", "adj_x 1",      "adj_y 1",     "wild",          "clamp-sized",
          "extremes",   "sparse",       "bias large",  "bias centered", "no-layout-flag"})
      if (d.find(f) != std::string::npos) ++features[f];
    if (L.type == hal::OperationType::GROUPED_CONV_2D && d.find("groups 1 ") == std::string::npos)
      ++features["groups>1"];
  }
  // Drawn uniformly: each type near its share of the 2000 (at least three quarters of it).
  const int share = 2000 / static_cast<int>(randomLayerTypes().size());
  for (hal::OperationType t : randomLayerTypes())
    EXPECT_GT(types[t], share * 3 / 4) << hal::toString(t);
  for (const char* f :
       {" s8",          " u8",       "per-channel", "per-tensor", "NCHW",          "NHWC",
        "pad explicit", "pad SAME",  "pad VALID",   "act NONE",   "act RELU ",     "act RELU1",
        "act RELU6",    "mult 2",    "mult 3",      "mult 4",     "dilation 2x",   "dilation 3x",
        "stride 2x",    "stride 3x", "(constant)",  "adj_x 1",    "adj_y 1",       "wild",
        "clamp-sized",  "extremes",  "sparse",      "bias large", "bias centered", "no-layout-flag",
        "groups>1"})
    EXPECT_GT(features[f], 5) << f;
}

TEST(Difftest, GeneratorRestrictsToTheRequestedTypes) {
  GeneratorOptions o;
  o.types = {hal::OperationType::DEPTHWISE_CONV_2D, hal::OperationType::BATCH_MATMUL};
  std::set<hal::OperationType> seen;
  for (uint64_t i = 0; i < 100; ++i) seen.insert(randomLayer(layerSeed(5, i), o).type);
  EXPECT_EQ(seen, (std::set<hal::OperationType>{hal::OperationType::DEPTHWISE_CONV_2D,
                                                hal::OperationType::BATCH_MATMUL}));
}

// Every layer validates (structure and signature), is NPU-eligible, has its inputs, and
// stays within the size limits.
TEST(Difftest, LayersAreValidAndNpuEligible) {
  GeneratorOptions o;
  for (uint64_t i = 0; i < 1500; ++i) {
    const RandomLayer L = randomLayer(layerSeed(13, i), o);
    ASSERT_TRUE(driver::validateModelForExecution(L.model).ok())
        << L.description << ": " << driver::validateModelForExecution(L.model).error();
    const driver::Partition p = driver::partition(L.model);
    ASSERT_EQ(p.operations.size(), 1u);
    EXPECT_EQ(p.operations[0].target, driver::Target::kNpu)
        << L.description << ": " << p.operations[0].reason;
    ASSERT_EQ(L.inputs.size(), L.model.main.inputIndexes.size()) << L.description;
    for (size_t k = 0; k < L.inputs.size(); ++k) {
      const hal::Operand& op = L.model.main.operands[L.model.main.inputIndexes[k]];
      EXPECT_EQ(L.inputs[k].type, op.type);
      EXPECT_EQ(L.inputs[k].dimensions, op.dimensions);
      uint64_t n = 1;
      for (uint32_t d : op.dimensions) n *= d;
      EXPECT_EQ(L.inputs[k].bytes.size(), n * hal::elementSize(op.type)) << L.description;
    }
    const hal::Operation& op = L.model.main.operations[0];
    if (L.type != hal::OperationType::FULLY_CONNECTED &&
        L.type != hal::OperationType::BATCH_MATMUL) {
      const auto& in = L.model.main.operands[op.inputs[0]].dimensions;
      EXPECT_LE(in[0], o.maxBatch) << L.description;
      for (uint32_t d : in) EXPECT_LE(d, std::max(o.maxSpatial, o.maxChannels)) << L.description;
    }
  }
}

// Most layers have outputs spread over several values: the scales follow the data.
TEST(Difftest, OutputsAreMostlyNotSaturated) {
  NnapiDriver ref(nullptr);
  int spread = 0, total = 0, wide = 0;
  for (uint64_t i = 0; i < 400; ++i) {
    const RandomLayer L = randomLayer(layerSeed(17, i));
    auto prepared = ref.prepareModel(L.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER);
    ASSERT_TRUE(prepared.ok()) << L.description << ": " << prepared.error();
    auto result = (*prepared)->execute(L.inputs);
    ASSERT_TRUE(result.ok()) << L.description << ": " << result.error();
    const std::vector<hal::TensorValue>& out = result->outputs;
    ASSERT_EQ(out.size(), 1u);
    // The output codes (int16 in the 16x8 mode) and the rails of their type.
    const hal::OperandType t = out[0].type;
    std::vector<int32_t> b;
    int32_t lo = 0, hi = 255;
    if (t == hal::OperandType::TENSOR_QUANT16_SYMM) {
      for (size_t k = 0; k + 1 < out[0].bytes.size(); k += 2)
        b.push_back(static_cast<int16_t>(out[0].bytes[k] | out[0].bytes[k + 1] << 8));
      lo = -32768, hi = 32767;
      ++wide;
    } else {
      const bool isSigned = t == hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
      for (uint8_t v : out[0].bytes) b.push_back(isSigned ? static_cast<int8_t>(v) : v);
      if (isSigned) lo = -128, hi = 127;
    }
    std::set<int32_t> values(b.begin(), b.end());
    size_t clamped = 0;
    for (int32_t v : b) clamped += v == lo || v == hi;
    ++total;
    // Several levels, and not nearly all at the rails (RELU outputs at 0 often sit on one).
    if (values.size() >= std::min<size_t>(3, b.size()) && clamped * 10 <= b.size() * 9) ++spread;
  }
  std::printf(
      "[ difftest ] %d of %d layers have outputs over several levels, not all at the rails\n",
      spread, total);
  EXPECT_GT(spread, total * 8 / 10) << spread << " of " << total;
  EXPECT_GT(wide, total / 20) << "16x8 layers among the default mix";
}

TEST(Difftest, CompareOutputsNamesTheFirstDifference) {
  hal::TensorValue a;
  a.type = hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  a.dimensions = {1, 2, 3};
  a.bytes = {1, 2, 3, 4, 5, 6};
  hal::TensorValue b = a;
  EXPECT_EQ(compareOutputs({a}, {b}), "");
  b.bytes[4] = 0xff;  // -1
  b.bytes[5] = 9;
  EXPECT_EQ(compareOutputs({a}, {b}),
            "output 0 element 4 [0, 1, 1] of shape [1, 2, 3]: NPU 5, reference -1; 2 of 6 elements "
            "differ "
            "(max |diff| 6)");
}

// Runs `o` on a strict interpreter against the reference, each failure a test failure.
DifftestSummary runOnInterpreter(const DifftestOptions& o) {
  InterpreterDevice dev;
  NnapiDriver npu(&dev), ref(nullptr);
  const DifftestSummary s = runDifftest({npu, "isa", ref, "ref"}, o, {});
  for (const LayerResult& f : s.failures)
    ADD_FAILURE() << "layer " << f.index << ": " << f.description << "\n" << f.detail;
  return s;
}

// 100 layers of `g` (seed 5) on the strict interpreter: every one NPU-checked, bit-exact.
DifftestSummary hundredOnInterpreter(const GeneratorOptions& g) {
  DifftestOptions o;
  o.seed = 5;
  o.layers = 100;
  o.generator = g;
  const DifftestSummary s = runOnInterpreter(o);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.npuChecked, 100u);
  return s;
}

// The runner on the strict ISA interpreter: every layer NPU-checked and bit-exact.
TEST(Difftest, RunnerOnTheInterpreterIsBitExact) {
  InterpreterDevice dev;
  NnapiDriver npu(&dev), ref(nullptr);
  DifftestOptions o;
  o.seed = 1;
  o.layers = 150;
  uint64_t calls = 0;
  const DifftestSummary s = runDifftest(
      {npu, "isa", ref, "ref"}, o, [&](const LayerResult&, const DifftestSummary&) { ++calls; });
  EXPECT_EQ(calls, 150u);
  EXPECT_EQ(s.layers, 150u);
  EXPECT_EQ(s.npuChecked + s.fallbacks + s.errors, 150u);
  for (const LayerResult& f : s.failures)
    ADD_FAILURE() << "layer " << f.index << ": " << f.description << "\n" << f.detail;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.fallbacks, 0u);
  EXPECT_GT(s.npuCycles, 0u);
  EXPECT_EQ(s.byOperation.size(), randomLayerTypes().size());
}

// Inverted residuals (`--inverted-residuals`): valid models of one image whose operations
// run in order (expansion, depthwise, projection, and where the shape allows, half of the
// time, an ADD of the block's input), bit-exact on the strict interpreter, most of them as
// one fused step.
TEST(Difftest, InvertedResidualsAreValidAndFuseBitExact) {
  GeneratorOptions g;
  g.invertedResiduals = true;
  int adds = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    const RandomLayer L = randomLayer(layerSeed(23, i), g);
    ASSERT_TRUE(driver::validateModelForExecution(L.model).ok())
        << L.description << ": " << driver::validateModelForExecution(L.model).error();
    const std::vector<hal::Operation>& ops = L.model.main.operations;
    ASSERT_GE(ops.size(), 3u) << L.description;
    EXPECT_EQ(ops[0].type, hal::OperationType::CONV_2D);
    EXPECT_EQ(ops[1].type, hal::OperationType::DEPTHWISE_CONV_2D);
    EXPECT_EQ(ops[2].type, hal::OperationType::CONV_2D);
    EXPECT_EQ(ops[1].inputs[0], ops[0].outputs[0]);
    EXPECT_EQ(ops[2].inputs[0], ops[1].outputs[0]);
    if (ops.size() == 4) {
      ++adds;
      EXPECT_EQ(ops[3].type, hal::OperationType::ADD);
    }
    ASSERT_EQ(L.inputs.size(), 1u);
    EXPECT_EQ(L.model.main.operands[L.model.main.inputIndexes[0]].dimensions[0], 1u);
  }
  EXPECT_GT(adds, 15);  // where the pair keeps the block's shape (stride 1, SAME or 1 x 1)
  EXPECT_LT(adds, 200);
  const DifftestSummary s = hundredOnInterpreter(g);
  EXPECT_GT(s.fusedChecked, 60u);
}

// Chains (`--chains`): two or three depthwise -> pointwise pairs, each depthwise layer
// reading the pointwise output before it, valid models of one image; on the interpreter
// every layer NPU-checked and bit-exact, some joined into one step.
TEST(Difftest, ChainsAreValidAndJoinBitExact) {
  GeneratorOptions g;
  g.chains = true;
  int threes = 0;
  for (uint64_t i = 0; i < 300; ++i) {
    const RandomLayer L = randomLayer(layerSeed(29, i), g);
    ASSERT_TRUE(driver::validateModelForExecution(L.model).ok())
        << L.description << ": " << driver::validateModelForExecution(L.model).error();
    const std::vector<hal::Operation>& ops = L.model.main.operations;
    ASSERT_TRUE(ops.size() == 4u || ops.size() == 6u) << L.description;
    threes += ops.size() == 6;
    for (size_t k = 0; k < ops.size(); ++k) {
      EXPECT_EQ(ops[k].type,
                k % 2 ? hal::OperationType::CONV_2D : hal::OperationType::DEPTHWISE_CONV_2D);
      if (k > 0) {
        EXPECT_EQ(ops[k].inputs[0], ops[k - 1].outputs[0]) << L.description;
      }
    }
    ASSERT_EQ(L.inputs.size(), 1u);
    EXPECT_EQ(L.model.main.operands[L.model.main.inputIndexes[0]].dimensions[0], 1u);
  }
  EXPECT_GT(threes, 50);
  EXPECT_LT(threes, 150);
  const DifftestSummary s = hundredOnInterpreter(g);
  EXPECT_GT(s.chainsChecked, 10u);
}

// TRANSPOSE_CONV_2D on the NPU (the convolution of its zero-inserted input): every layer
// of every kind the generator draws (strides, paddings, 16x8) NPU-checked and bit-exact.
TEST(Difftest, TransposeConvolutionsRunOnTheNpuBitExact) {
  DifftestOptions o;
  o.seed = 7;
  o.layers = 300;
  o.generator.types = {hal::OperationType::TRANSPOSE_CONV_2D};
  const DifftestSummary s = runOnInterpreter(o);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.npuChecked, 300u);
  EXPECT_EQ(s.fallbacks, 0u);

  // Small buffers force k chunks, streamed weights and many phases on the same layers.
  NpuConfig small;
  small.inpBytes = 1024;
  small.wgtBytes = 4096;
  small.accBytes = 4096;
  small.outBytes = 1024;
  small.prmBytes = 1024;
  InterpreterDevice tiny(small);
  NnapiDriver npuTiny(&tiny), ref(nullptr);
  o.layers = 120;
  const DifftestSummary t = runDifftest({npuTiny, "isa (small buffers)", ref, "ref"}, o);
  for (const LayerResult& f : t.failures)
    ADD_FAILURE() << "small buffers, layer " << f.index << ": " << f.description << "\n"
                  << f.detail;
  EXPECT_TRUE(t.ok());
  EXPECT_GT(t.npuChecked, 100u) << t.fallbacks << " fallbacks";
}

// A fallback is reported as such, with the reason, and never counts as NPU-checked.
TEST(Difftest, CpuFallbackIsCountedSeparately) {
  InterpreterDevice dev;
  DriverOptions lo;
  lo.lowering.maxJobCommands =
      6;  // below one row tile: every conv lowering fails, the op stays on the CPU
  NnapiDriver npu(&dev, lo), ref(nullptr);
  DifftestOptions o;
  o.layers = 10;
  o.generator.types = {hal::OperationType::CONV_2D};
  const DifftestSummary s = runDifftest({npu, "isa", ref, "ref"}, o);
  EXPECT_EQ(s.fallbacks, 10u);
  EXPECT_EQ(s.npuChecked, 0u);
  EXPECT_TRUE(s.ok());
  ASSERT_FALSE(s.fallbackReasons.empty());
  EXPECT_NE(s.fallbackReasons.begin()->first.find("more than a job of 6"), std::string::npos)
      << s.fallbackReasons.begin()->first;
}

}  // namespace
}  // namespace nncosim::verify::difftest
