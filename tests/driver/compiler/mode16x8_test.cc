// The 16x8 mode on the NPU (driver/compiler/mode16x8.cc and the wide GEMM plans): int16
// activations x int8 weights with int64 accumulators and int16 outputs, lowered and run
// on the ISA interpreter, bit for bit against the reference; sums beyond the int32 range;
// chunked, streamed and multi-phase plans on a tiny NPU; every preference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "driver/compiler/partitioner.h"
#include "ops/conv/conv_common.h"
#include "tests/driver/compiler_test_util.h"

namespace nncosim::driver::test {
namespace {

constexpr OperandType kI16 = OperandType::TENSOR_QUANT16_SYMM;
constexpr OperandType kW8 = OperandType::TENSOR_QUANT8_SYMM;
constexpr OperandType kPerChannel = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;

struct Rng {
  std::mt19937 g;
  explicit Rng(uint32_t seed) : g(seed) {}
  int32_t range(int32_t lo, int32_t hi) {
    return std::uniform_int_distribution<int32_t>(lo, hi)(g);
  }
  double logUniform(double lo, double hi) {
    return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(g));
  }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(g); }
};

struct Case {
  std::string what;
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
};

enum class Kind { kConv, kDepthwise, kFullyConnected };

// A random 16x8 layer. The output scale is sized from the largest possible accumulator
// (times a random factor), so outputs use much of the int16 range and some saturate.
// runtimeWeights: the (per-tensor) filter is a model input instead of a constant.
Case randomLayer(Rng& r, Kind kind, bool bigSums = false, bool runtimeWeights = false) {
  OneOpModel m;
  std::ostringstream what;
  const bool perChannel = !runtimeWeights && r.coin(0.5);
  const int32_t activation = r.range(0, 3);
  const uint32_t batches = r.coin(0.8) ? 1 : 2;
  uint32_t inC = static_cast<uint32_t>(r.range(1, 40)),
           outC = static_cast<uint32_t>(r.range(1, 40));
  uint32_t multiplier = 1;
  if (kind == Kind::kDepthwise) {
    multiplier = r.coin(0.6) ? 1 : static_cast<uint32_t>(r.range(2, 3));
    outC = inC * multiplier;
  }
  const uint32_t fh = kind == Kind::kFullyConnected ? 1 : static_cast<uint32_t>(r.range(1, 4));
  const uint32_t fw = kind == Kind::kFullyConnected ? 1 : static_cast<uint32_t>(r.range(1, 4));
  const int32_t sh = r.range(1, 2), sw = r.range(1, 2);
  const uint32_t inH = kind == Kind::kFullyConnected
                           ? 1
                           : static_cast<uint32_t>(r.range(static_cast<int32_t>(fh), 12));
  const uint32_t inW = kind == Kind::kFullyConnected
                           ? 1
                           : static_cast<uint32_t>(r.range(static_cast<int32_t>(fw), 20));
  uint32_t depth = kind == Kind::kDepthwise ? fh * fw : inC * fh * fw;
  uint32_t fcInput = 0;
  if (kind == Kind::kFullyConnected) {
    fcInput = bigSums ? 2048 + static_cast<uint32_t>(r.range(0, 300))
                      : static_cast<uint32_t>(r.range(1, 300));
    depth = fcInput;
  }
  const int32_t amp = bigSums ? 32767 : r.range(100, 32767);
  // Big sums: near-full-scale inputs of one sign, each weight row of one sign (per unit),
  // so |sum| approaches depth * 32767 * 127 (> 2^31 from depth 517 on).
  auto val16 = [&] {
    return static_cast<int16_t>(bigSums ? amp - r.range(0, 64) : r.range(-amp, amp));
  };
  int rowSign = 1;
  auto val8 = [&] {
    return static_cast<int8_t>(bigSums ? rowSign * (127 - r.range(0, 4)) : r.range(-127, 127));
  };

  const float inScale = static_cast<float>(r.logUniform(1e-4, 1e-2));
  const float wScale = static_cast<float>(r.logUniform(1e-3, 5e-2));
  std::vector<float> scales(outC);
  for (float& s : scales)
    s = perChannel ? static_cast<float>(wScale * r.logUniform(0.25, 4.0)) : wScale;
  // Accumulators reach depth * amp * 127; map a random fraction of that onto int16.
  const double accMax = double(depth) * amp * 127;
  // Big sums land mid-range (not saturated), so the check sees their exact low bits.
  const double outScale = double(inScale) * wScale * accMax / 32767.0 *
                          (bigSums ? r.logUniform(1.2, 3.0) : r.logUniform(0.02, 1.5));

  std::vector<uint32_t> inDims, outDims, wDims;
  std::vector<int16_t> in;
  std::vector<int8_t> w;
  std::vector<int32_t> bias(outC);
  for (int32_t& b : bias) b = r.range(-1000000, 1000000);
  if (kind == Kind::kFullyConnected) {
    inDims = {batches, fcInput};
    wDims = {outC, fcInput};
    outDims = {batches, outC};
  } else {
    inDims = {batches, inH, inW, inC};
    wDims = kind == Kind::kDepthwise ? std::vector<uint32_t>{1, fh, fw, outC}
                                     : std::vector<uint32_t>{outC, fh, fw, inC};
  }
  uint64_t inCount = 1, wCount = 1;
  for (uint32_t d : inDims) inCount *= d;
  for (uint32_t d : wDims) wCount *= d;
  in.resize(inCount);
  w.resize(wCount);
  for (int16_t& x : in) x = val16();
  const uint64_t rowLength = wCount / wDims[0];
  for (uint64_t i = 0; i < wCount; ++i) {
    if (i % rowLength == 0) rowSign = r.coin() ? 1 : -1;
    w[i] = val8();
  }

  const uint32_t input = m.input(kI16, inDims, in, inScale, 0);
  uint32_t filter;
  if (perChannel) {
    filter = m.constant(kPerChannel, wDims, w, 0.0f, 0);
    m.channelQuant(filter, scales, kind == Kind::kDepthwise ? 3 : 0);
  } else if (runtimeWeights) {
    filter = m.input(kW8, wDims, w, wScale, 0);
  } else {
    filter = m.constant(kW8, wDims, w, wScale, 0);
  }
  const uint32_t biasOp = m.constant(kI32, {outC}, bias, perChannel ? 0.0f : inScale * wScale, 0);
  std::vector<uint32_t> args = {input, filter, biasOp};
  if (kind != Kind::kFullyConnected) {
    const int32_t scheme = r.coin() ? ops::conv::kPaddingSame : ops::conv::kPaddingValid;
    args.push_back(m.i32(scheme));
    args.push_back(m.i32(sw));
    args.push_back(m.i32(sh));
    if (kind == Kind::kDepthwise) args.push_back(m.i32(static_cast<int32_t>(multiplier)));
    int32_t pl, pr, pt, pb;
    ops::conv::explicitPadding(static_cast<int32_t>(inW), sw, 1, static_cast<int32_t>(fw), scheme,
                               false, &pl, &pr);
    ops::conv::explicitPadding(static_cast<int32_t>(inH), sh, 1, static_cast<int32_t>(fh), scheme,
                               false, &pt, &pb);
    const uint32_t outH = static_cast<uint32_t>(ops::conv::convOutSize(inH, fh, sh, 1, pt, pb));
    const uint32_t outW = static_cast<uint32_t>(ops::conv::convOutSize(inW, fw, sw, 1, pl, pr));
    outDims = {batches, outH, outW, outC};
  }
  args.push_back(m.i32(activation));
  const uint32_t out = m.output(kI16, outDims, static_cast<float>(outScale), 0);
  const OperationType type = kind == Kind::kConv        ? OperationType::CONV_2D
                             : kind == Kind::kDepthwise ? OperationType::DEPTHWISE_CONV_2D
                                                        : OperationType::FULLY_CONNECTED;
  m.op(type, args, {out});
  Case c;
  c.model = m.build();
  c.model.quant16x8 = true;
  c.inputs = m.inputs();
  what << hal::toString(type) << " 16x8 in " << ops::toString(inDims) << " filter "
       << ops::toString(wDims) << (perChannel ? " per-channel" : " per-tensor")
       << (runtimeWeights ? " runtime weights" : "") << " act " << activation << " out "
       << ops::toString(outDims);
  c.what = what.str();
  return c;
}

// Lowers and runs `c` on the interpreter; expects the reference's bytes exactly, and (16x8)
// every GEMM to read the int8 weights as bytes (int16 mode with wgt8, int64 ACC).
void expectBitExact(const Case& c, const LoweringOptions& options, bool requireWide = true) {
  std::vector<hal::TensorValue> ref;
  const std::string refError = referenceRun(c.model, c.inputs, ref);
  ASSERT_EQ(refError, "") << c.what;
  const NpuRun npu = npuRun(c.model, c.inputs, options);
  ASSERT_EQ(npu.error, "") << c.what;
  ASSERT_EQ(npu.outputs.size(), 1u);
  if (requireWide) {
    EXPECT_NE(npu.step.report.mapping.find("16x8"), std::string::npos) << npu.step.report.mapping;
    int gemms = 0;
    for (const firmware::Command& cmd : npu.step.commands)
      if (const auto* g = std::get_if<firmware::Gemm>(&cmd.args)) {
        ++gemms;
        ASSERT_TRUE(g->mode == firmware::GemmMode::kInt16 && g->wgt8 && g->acc64)
            << c.what << ": " << firmware::disassemble(cmd);
      }
    EXPECT_GT(gemms, 0) << c.what;
  }
  ASSERT_EQ(npu.outputs[0].size(), ref[0].bytes.size()) << c.what;
  const auto* a = reinterpret_cast<const int16_t*>(npu.outputs[0].data());
  const auto* b = reinterpret_cast<const int16_t*>(ref[0].bytes.data());
  for (size_t i = 0; i < ref[0].bytes.size() / 2; ++i)
    ASSERT_EQ(a[i], b[i]) << c.what << ": element " << i << "\n" << npu.step.report.describe();
}

TEST(Mode16x8, RandomLayersMatchTheReference) {
  Rng r(16);
  int layers = 0;
  for (Kind kind : {Kind::kConv, Kind::kDepthwise, Kind::kFullyConnected})
    for (int i = 0; i < 40; ++i) {
      const Case c = randomLayer(r, kind);
      LoweringOptions o;
      o.preference = static_cast<hal::ExecutionPreference>(r.range(0, 2));
      expectBitExact(c, o);
      if (HasFatalFailure()) return;
      ++layers;
    }
  EXPECT_EQ(layers, 120);
}

// Both host-gathered mappings run 16x8 layers (output blocks: depthwise only); the
// DMA-gathered ones refuse them.
TEST(Mode16x8, EveryHostGatheredMapping) {
  Rng r(20);
  int blocks = 0;
  for (int i = 0; i < 30; ++i) {
    const Case c = randomLayer(r, i % 2 ? Kind::kDepthwise : Kind::kConv);
    LoweringOptions o;
    o.convMapping = ConvMapping::kHostIm2col;
    expectBitExact(c, o);
    if (HasFatalFailure()) return;
    if (i % 2) {
      o.convMapping = ConvMapping::kOutputBlocks;
      expectBitExact(c, o);
      if (HasFatalFailure()) return;
      ++blocks;
    }
    o.convMapping = ConvMapping::kDmaIm2col;
    EXPECT_NE(npuRun(c.model, c.inputs, o).error.find("16x8 mode"), std::string::npos);
  }
  EXPECT_EQ(blocks, 15);
}

// The raw window (the NHWC input itself, k = fh*fw*inC) runs 16x8 convolutions of few
// input channels: int16 elements, byte strides twice the 8-bit ones.
TEST(Mode16x8, RawWindowOnFewInputChannels) {
  Rng r(23);
  int applied = 0;
  for (int i = 0; i < 800 && applied < 30; ++i) {
    const Case c = randomLayer(r, i % 3 ? Kind::kConv : Kind::kDepthwise);
    LoweringOptions o;
    o.convMapping = ConvMapping::kRawWindow;
    const NpuRun run = npuRun(c.model, c.inputs, o);
    if (run.error.find("no mapping applies") != std::string::npos) continue;
    expectBitExact(c, o);
    if (HasFatalFailure()) return;
    ++applied;
  }
  EXPECT_GE(applied, 20);
}

TEST(Mode16x8, TinyNpuChunkedAndStreamedPlans) {
  Rng r(17);
  LoweringOptions o;
  o.npu = tinyNpu();
  for (Kind kind : {Kind::kConv, Kind::kDepthwise, Kind::kFullyConnected})
    for (int i = 0; i < 25; ++i) {
      expectBitExact(randomLayer(r, kind), o);
      if (HasFatalFailure()) return;
    }
}

// Full-scale int16 x int8 products over K >= 2048: the exact sums pass 2^31, which int32
// accumulators would wrap; the int64 ACC path must keep them.
TEST(Mode16x8, SumsBeyondInt32) {
  Rng r(18);
  int beyond = 0;
  for (int i = 0; i < 6; ++i) {
    const Case c = randomLayer(r, Kind::kFullyConnected, /*bigSums=*/true);
    // The largest exact |sum| of the layer.
    const hal::Operand& win = c.model.main.operands[c.model.main.operations[0].inputs[1]];
    const auto* w = reinterpret_cast<const int8_t*>(c.model.constantData(win));
    const auto* x = reinterpret_cast<const int16_t*>(c.inputs[0].bytes.data());
    const uint32_t units = win.dimensions[0], depth = win.dimensions[1];
    const uint32_t batches = c.inputs[0].dimensions[0];
    int64_t largest = 0;
    for (uint32_t b = 0; b < batches; ++b)
      for (uint32_t u = 0; u < units; ++u) {
        int64_t s = 0;
        for (uint32_t k = 0; k < depth; ++k)
          s += int64_t{x[size_t{b} * depth + k]} * w[size_t{u} * depth + k];
        largest = std::max(largest, s < 0 ? -s : s);
      }
    beyond += largest > INT32_MAX;
    // Most outputs are mid-range, so the low bits of the wide sums matter to the check.
    std::vector<hal::TensorValue> ref;
    ASSERT_EQ(referenceRun(c.model, c.inputs, ref), "");
    const auto* y = reinterpret_cast<const int16_t*>(ref[0].bytes.data());
    size_t inside = 0, n = ref[0].bytes.size() / 2;
    for (size_t k = 0; k < n; ++k) inside += y[k] > -32768 && y[k] < 32767;
    EXPECT_GE(inside * 2, n) << c.what;
    LoweringOptions o;
    expectBitExact(c, o);
    if (HasFatalFailure()) return;
    o.npu = tinyNpu();  // k chunks: the int64 partial sums accumulate in ACC
    expectBitExact(c, o);
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(beyond, 3) << "the big-sum layers should mostly exceed the int32 range";
}

// FULLY_CONNECTED whose int8 weights are a model input: with wgt8 they need no compile-time
// widening, so the host packs them before the job like the 8-bit mode's.
TEST(Mode16x8, RuntimeFullyConnectedWeights) {
  Rng r(21);
  for (int i = 0; i < 12; ++i) {
    LoweringOptions o;
    if (i % 3 == 2) o.npu = tinyNpu();
    expectBitExact(
        randomLayer(r, Kind::kFullyConnected, /*bigSums=*/i % 4 == 1, /*runtimeWeights=*/true), o);
    if (HasFatalFailure()) return;
  }
}

TEST(Mode16x8, PartitionPlacesItOnTheNpuOnlyWhenSelected) {
  Rng r(19);
  Case c = randomLayer(r, Kind::kConv);
  Partition p = partition(c.model);
  ASSERT_EQ(p.operations.size(), 1u);
  EXPECT_EQ(p.operations[0].target, Target::kNpu) << p.describe();
  c.model.quant16x8 = false;
  p = partition(c.model);
  EXPECT_EQ(p.operations[0].target, Target::kCpu);
  EXPECT_NE(p.operations[0].reason.find("16x8"), std::string::npos) << p.operations[0].reason;
}

}  // namespace
}  // namespace nncosim::driver::test
