// Lowering + ISA interpreter == the ops reference, bit for bit, over many random layers:
// shapes, strides, padding (explicit and implicit), dilation, NCHW, zero points, per-tensor
// and per-channel scales, fused activations, uint8 and int8, groups and depth
// multipliers; on the real buffer sizes and on a tiny NPU that forces multi-phase,
// streamed-weight and k-chunked plans; under every execution preference.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <sstream>

#include "ops/conv/conv_common.h"
#include "tests/driver/compiler_test_util.h"

namespace nncosim::driver::test {
namespace {

constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kS8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;
constexpr OperandType kPerChannel = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;

enum class Kind { kConv, kDepthwise, kGrouped };

struct Rng {
  std::mt19937 g;
  explicit Rng(uint32_t seed) : g(seed) {}
  int32_t range(int32_t lo, int32_t hi) {
    return std::uniform_int_distribution<int32_t>(lo, hi)(g);
  }
  float real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(g); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(g); }
  template <typename T>
  std::vector<T> values(size_t n, int32_t lo, int32_t hi) {
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(range(lo, hi));
    return v;
  }
};

struct Case {
  std::string what;
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
};

// How large randomConv's layers get: channels up to maxC, input up to the filter's
// extent plus extraH x extraW.
struct ConvSize {
  int32_t maxC = 40, extraH = 14, extraW = 24;
};

// A random quantized convolution of `kind` that the reference accepts.
Case randomConv(Rng& r, Kind kind, ConvSize size = {}) {
  OneOpModel m;
  std::ostringstream what;
  const bool isSigned = r.coin();
  const OperandType t = isSigned ? kS8 : kU8;
  const int32_t qlo = isSigned ? -128 : 0, qhi = isSigned ? 127 : 255;
  const bool perChannel = r.coin(0.4);
  const uint32_t batches = r.coin(0.8) ? 1 : 2;
  uint32_t groups = 1, multiplier = 1, inC, outC;
  switch (kind) {
    case Kind::kConv:
      inC = r.range(1, size.maxC);
      outC = r.range(1, size.maxC);
      break;
    case Kind::kDepthwise:
      inC = r.range(1, size.maxC);
      multiplier = r.coin(0.6) ? 1 : r.range(2, 4);
      outC = inC * multiplier;
      break;
    case Kind::kGrouped:
      groups = r.range(1, 6);
      inC = groups * r.range(1, 8);
      outC = groups * r.range(1, 12);
      break;
  }
  const uint32_t fh = r.range(1, 5), fw = r.range(1, 5);
  const int32_t sh = r.range(1, 3), sw = r.range(1, 3);
  const bool dilated = kind != Kind::kGrouped && r.coin(0.3);
  const int32_t dh = dilated ? r.range(1, 3) : 1, dw = dilated ? r.range(1, 3) : 1;
  const uint32_t effH = (fh - 1) * dh + 1, effW = (fw - 1) * dw + 1;
  const uint32_t inH = r.range(std::max<int32_t>(1, effH - 2), effH + size.extraH);
  const uint32_t inW = r.range(std::max<int32_t>(1, effW - 2), effW + size.extraW);
  const bool explicitPad = r.coin();
  int32_t pl = 0, pr = 0, pt = 0, pb = 0,
          scheme = r.coin() ? ops::conv::kPaddingSame : ops::conv::kPaddingValid;
  if (explicitPad) {
    pl = r.range(0, effW - 1);
    pr = r.range(0, effW - 1);
    pt = r.range(0, effH - 1);
    pb = r.range(0, effH - 1);
  } else {
    ops::conv::explicitPadding(inW, sw, dw, fw, scheme, false, &pl, &pr);
    ops::conv::explicitPadding(inH, sh, dh, fh, scheme, false, &pt, &pb);
  }
  const int64_t outW = ops::conv::convOutSize(inW, fw, sw, dw, pl, pr);
  const int64_t outH = ops::conv::convOutSize(inH, fh, sh, dh, pt, pb);
  // Grow the input until the output is not empty.
  if (outW <= 0 || outH <= 0) return randomConv(r, kind, size);
  const bool nchw = (kind == Kind::kGrouped || r.coin(0.25)) ? r.coin(0.3) : false;
  const int32_t activation = r.range(0, 3);

  const float inScale = r.real(0.005f, 0.1f);
  const int32_t inZp = r.range(qlo, qhi);
  const int32_t outZp = r.range(qlo, qhi);
  const uint32_t filterIn = kind == Kind::kConv ? inC : kind == Kind::kGrouped ? inC / groups : 1;
  const uint32_t k = filterIn * fh * fw;
  std::vector<uint32_t> filterDims = kind == Kind::kDepthwise
                                         ? std::vector<uint32_t>{1, fh, fw, outC}
                                         : std::vector<uint32_t>{outC, fh, fw, filterIn};
  const size_t filterCount = size_t{outC} * fh * fw * filterIn;

  std::vector<uint32_t> inDims = nchw ? std::vector<uint32_t>{batches, inC, inH, inW}
                                      : std::vector<uint32_t>{batches, inH, inW, inC};
  const uint32_t in =
      isSigned ? m.input(t, inDims, r.values<int8_t>(size_t{batches} * inH * inW * inC, -128, 127),
                         inScale, inZp)
               : m.input(t, inDims, r.values<uint8_t>(size_t{batches} * inH * inW * inC, 0, 255),
                         inScale, inZp);
  uint32_t filter;
  float biasScale;
  float filterScale = r.real(0.002f, 0.05f);
  std::vector<float> channelScales;
  if (perChannel) {
    for (uint32_t c = 0; c < outC; ++c) channelScales.push_back(r.real(0.002f, 0.05f));
    filter = m.constant(kPerChannel, filterDims, r.values<int8_t>(filterCount, -127, 127), 0.0f, 0);
    m.channelQuant(filter, channelScales, kind == Kind::kDepthwise ? 3 : 0);
    biasScale = inScale * channelScales[0];
  } else {
    const int32_t fzp = r.range(qlo, qhi);
    filter =
        isSigned
            ? m.constant(t, filterDims, r.values<int8_t>(filterCount, -128, 127), filterScale, fzp)
            : m.constant(t, filterDims, r.values<uint8_t>(filterCount, 0, 255), filterScale, fzp);
    biasScale = inScale * filterScale;
  }
  // The output scale keeps most multipliers below 1 but sometimes above.
  const float typical =
      inScale * (perChannel ? channelScales[0] : filterScale) * std::sqrt(float(k)) * 60.0f;
  const float outScale = typical * r.real(0.2f, 3.0f);
  const int32_t biasRange = r.coin(0.2) ? 1 << 20 : 3000;
  const uint32_t bias =
      m.constant(kI32, {outC}, r.values<int32_t>(outC, -biasRange, biasRange), biasScale, 0);

  std::vector<uint32_t> args = {in, filter, bias};
  if (explicitPad) {
    for (int32_t v : {pl, pr, pt, pb}) args.push_back(m.i32(v));
  } else {
    args.push_back(m.i32(scheme));
  }
  args.push_back(m.i32(sw));
  args.push_back(m.i32(sh));
  if (kind == Kind::kDepthwise) args.push_back(m.i32(multiplier));
  if (kind == Kind::kGrouped) args.push_back(m.i32(groups));
  args.push_back(m.i32(activation));
  const bool layoutFlag = kind == Kind::kGrouped || nchw || dilated || r.coin(0.3);
  if (layoutFlag) args.push_back(m.flag(nchw));
  if (dilated) {
    args.push_back(m.i32(dw));
    args.push_back(m.i32(dh));
  }
  std::vector<uint32_t> outDims =
      nchw ? std::vector<uint32_t>{batches, outC, uint32_t(outH), uint32_t(outW)}
           : std::vector<uint32_t>{batches, uint32_t(outH), uint32_t(outW), outC};
  const uint32_t out = m.output(t, outDims, outScale, outZp);
  const OperationType type = kind == Kind::kConv        ? OperationType::CONV_2D
                             : kind == Kind::kDepthwise ? OperationType::DEPTHWISE_CONV_2D
                                                        : OperationType::GROUPED_CONV_2D;
  m.op(type, args, {out});
  what << hal::toString(type) << (isSigned ? " s8" : " u8") << (perChannel ? " per-channel" : "")
       << " in " << ops::toString(inDims) << " filter " << fh << "x" << fw << " out C " << outC
       << " stride " << sh << "x" << sw << " dilation " << dh << "x" << dw << " pad t" << pt << " b"
       << pb << " l" << pl << " r" << pr << (explicitPad ? " explicit" : " implicit") << " act "
       << activation << (nchw ? " NCHW" : "") << " groups " << groups << " mult " << multiplier;
  Case c{what.str(), m.build(), m.inputs()};
  return c;
}

// A real network's layer: int8, per-channel weights, SAME padding, ReLU6, NHWC; a
// depthwise layer when `multiplier` > 0 (then outC = inC * multiplier).
Case networkLayer(Rng& r, uint32_t inH, uint32_t inW, uint32_t inC, uint32_t outC, uint32_t f,
                  int32_t stride, uint32_t multiplier) {
  OneOpModel m;
  const bool depthwise = multiplier > 0;
  if (depthwise) outC = inC * multiplier;
  const uint32_t in = m.input(kS8, {1, inH, inW, inC},
                              r.values<int8_t>(size_t{inH} * inW * inC, -128, 127), 0.02f, -3);
  const uint32_t filterIn = depthwise ? 1 : inC;
  const std::vector<uint32_t> filterDims =
      depthwise ? std::vector<uint32_t>{1, f, f, outC} : std::vector<uint32_t>{outC, f, f, inC};
  const uint32_t filter = m.constant(
      kPerChannel, filterDims, r.values<int8_t>(size_t{outC} * f * f * filterIn, -127, 127), 0, 0);
  std::vector<float> scales;
  for (uint32_t c = 0; c < outC; ++c) scales.push_back(r.real(0.002f, 0.05f));
  m.channelQuant(filter, scales, depthwise ? 3 : 0);
  const uint32_t bias =
      m.constant(kI32, {outC}, r.values<int32_t>(outC, -3000, 3000), 0.02f * scales[0], 0);
  std::vector<uint32_t> args = {
      in, filter, bias, m.i32(ops::conv::kPaddingSame), m.i32(stride), m.i32(stride)};
  if (depthwise) args.push_back(m.i32(static_cast<int32_t>(multiplier)));
  args.push_back(m.i32(3));  // ReLU6
  const uint32_t outH = (inH + stride - 1) / stride, outW = (inW + stride - 1) / stride;
  const uint32_t out = m.output(kS8, {1, outH, outW, outC}, 0.5f, -128);
  m.op(depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, args, {out});
  std::ostringstream what;
  what << (depthwise ? "depthwise" : "conv") << " " << inH << "x" << inW << "x" << inC << " -> "
       << outC << " filter " << f << " stride " << stride;
  return Case{what.str(), m.build(), m.inputs()};
}

Case randomFullyConnected(Rng& r) {
  OneOpModel m;
  const bool isSigned = r.coin();
  const OperandType t = isSigned ? kS8 : kU8;
  const int32_t qlo = isSigned ? -128 : 0, qhi = isSigned ? 127 : 255;
  const uint32_t batches = r.range(1, 40), inputSize = r.range(1, 300), units = r.range(1, 50);
  const float inScale = r.real(0.005f, 0.1f), wScale = r.real(0.002f, 0.05f);
  const float outScale =
      inScale * wScale * std::sqrt(float(inputSize)) * 60.0f * r.real(0.2f, 3.0f);
  // Rank 2 or a rank-4 input flattened by the operation.
  std::vector<uint32_t> inDims = r.coin(0.7) ? std::vector<uint32_t>{batches, inputSize}
                                             : std::vector<uint32_t>{batches, 1, 1, inputSize};
  const size_t n = size_t{batches} * inputSize;
  const uint32_t in =
      isSigned ? m.input(t, inDims, r.values<int8_t>(n, -128, 127), inScale, r.range(qlo, qhi))
               : m.input(t, inDims, r.values<uint8_t>(n, 0, 255), inScale, r.range(qlo, qhi));
  const size_t wn = size_t{units} * inputSize;
  const uint32_t w = isSigned ? m.constant(t, {units, inputSize}, r.values<int8_t>(wn, -128, 127),
                                           wScale, r.range(qlo, qhi))
                              : m.constant(t, {units, inputSize}, r.values<uint8_t>(wn, 0, 255),
                                           wScale, r.range(qlo, qhi));
  const uint32_t bias =
      m.constant(kI32, {units}, r.values<int32_t>(units, -5000, 5000), inScale * wScale, 0);
  const int32_t activation = r.range(0, 3);
  const uint32_t out = m.output(t, {batches, units}, outScale, r.range(qlo, qhi));
  m.op(OperationType::FULLY_CONNECTED, {in, w, bias, m.i32(activation)}, {out});
  std::ostringstream what;
  what << "FULLY_CONNECTED " << (isSigned ? "s8" : "u8") << " batches " << batches << " in "
       << inputSize << " units " << units << " act " << activation;
  return Case{what.str(), m.build(), m.inputs()};
}

Case randomBatchMatmul(Rng& r) {
  OneOpModel m;
  const uint32_t rank = r.range(2, 4);
  std::vector<uint32_t> batch;
  for (uint32_t d = 0; d + 2 < rank; ++d) batch.push_back(r.range(1, 3));
  const uint32_t rows = r.range(1, 35), depth = r.range(1, r.coin(0.2) ? 400 : 70),
                 cols = r.range(1, 35);
  const bool adjX = r.coin(), adjY = r.coin();
  std::vector<uint32_t> lhsDims = batch, rhsDims = batch;
  for (uint32_t& d : rhsDims)
    if (r.coin(0.3)) d = 1;  // broadcast
  lhsDims.push_back(adjX ? depth : rows);
  lhsDims.push_back(adjX ? rows : depth);
  rhsDims.push_back(adjY ? cols : depth);
  rhsDims.push_back(adjY ? depth : cols);
  size_t ln = 1, rn = 1;
  for (uint32_t d : lhsDims) ln *= d;
  for (uint32_t d : rhsDims) rn *= d;
  const float ls = r.real(0.005f, 0.1f), rs = r.real(0.005f, 0.1f);
  const uint32_t lhs =
      m.input(kS8, lhsDims, r.values<int8_t>(ln, -128, 127), ls, r.range(-128, 127));
  const bool rhsConst = r.coin(0.3);
  const uint32_t rhs =
      rhsConst ? m.constant(kS8, rhsDims, r.values<int8_t>(rn, -128, 127), rs, r.range(-128, 127))
               : m.input(kS8, rhsDims, r.values<int8_t>(rn, -128, 127), rs, r.range(-128, 127));
  std::vector<uint32_t> outDims = batch;
  outDims.push_back(rows);
  outDims.push_back(cols);
  const float os = ls * rs * std::sqrt(float(depth)) * 60.0f * r.real(0.2f, 3.0f);
  const uint32_t out = m.output(kS8, outDims, os, r.range(-128, 127));
  m.op(OperationType::BATCH_MATMUL, {lhs, rhs, m.flag(adjX), m.flag(adjY)}, {out});
  std::ostringstream what;
  what << "BATCH_MATMUL lhs " << ops::toString(lhsDims) << " rhs " << ops::toString(rhsDims)
       << (rhsConst ? " (constant)" : "") << " adj " << adjX << adjY;
  return Case{what.str(), m.build(), m.inputs()};
}

// Runs one case on the reference and the NPU path; "" when bit-exact.
std::string check(const Case& c, const LoweringOptions& options, NpuRun* keep = nullptr) {
  std::vector<hal::TensorValue> want;
  const std::string err = referenceRun(c.model, c.inputs, want);
  if (!err.empty()) return "reference: " + err;
  NpuRun got = npuRun(c.model, c.inputs, options);
  if (!got.error.empty()) return got.error;
  if (got.outputs.size() != want.size()) return "output count differs";
  for (size_t i = 0; i < want.size(); ++i) {
    if (got.outputs[i].size() != want[i].bytes.size()) return "output size differs";
    for (size_t b = 0; b < want[i].bytes.size(); ++b)
      if (got.outputs[i][b] != want[i].bytes[b]) {
        std::ostringstream os;
        os << "byte " << b << " of " << want[i].bytes.size() << ": npu " << int{got.outputs[i][b]}
           << ", reference " << int{want[i].bytes[b]};
        return os.str();
      }
  }
  if (keep) *keep = std::move(got);
  return "";
}

struct Tally {
  int checked = 0, exact = 0;
  int streamed = 0, multiPhase = 0, chunked = 0, shifted = 0, multiJob = 0;
};

void runMany(const char* name, int count, uint32_t seed, const std::function<Case(Rng&)>& make) {
  Rng r(seed);
  Tally tally;
  const hal::ExecutionPreference prefs[] = {hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                            hal::ExecutionPreference::SUSTAINED_SPEED,
                                            hal::ExecutionPreference::LOW_POWER};
  for (int i = 0; i < count; ++i) {
    Case c = make(r);
    LoweringOptions o;
    o.preference = prefs[i % 3];
    if (i % 4 == 3) o.npu = tinyNpu();
    if (i % 5 == 4 && i % 4 != 3) o.maxJobCommands = 160;  // many short jobs
    NpuRun run;
    const std::string err = check(c, o, &run);
    ++tally.checked;
    if (err.empty()) {
      ++tally.exact;
      const StepReport& rep = run.step.report;
      // Timing does not depend on data or addresses: the compile-time estimate is exact.
      EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << name << " case " << i;
      tally.streamed += rep.weightMode == "streamed";
      tally.multiPhase += rep.phases > 1;
      tally.chunked += rep.kChunk < rep.depth;
      tally.shifted += rep.mapping.find("shifted") != std::string::npos;
      tally.multiJob += rep.jobs > 1;
      size_t job = 0, longest = 0;
      for (const firmware::Command& cmd : run.step.commands) {
        longest = std::max(longest, ++job);
        if (std::holds_alternative<firmware::End>(cmd.args)) job = 0;
      }
      EXPECT_LE(longest, o.maxJobCommands) << name << " case " << i;
    } else {
      ADD_FAILURE() << name << " case " << i << " (" << c.what << ", "
                    << hal::toString(o.preference) << (i % 4 == 3 ? ", tiny NPU" : "")
                    << "): " << err;
    }
  }
  std::printf(
      "[ %s ] %d random layers, %d bit-exact (%d streamed weights, %d multi-phase, %d k-chunked, "
      "%d shifted-window, %d multi-job)\n",
      name, tally.checked, tally.exact, tally.streamed, tally.multiPhase, tally.chunked,
      tally.shifted, tally.multiJob);
  // The tiny NPU must have exercised the plans the real buffers rarely need.
  EXPECT_GT(tally.multiPhase, 0) << name;
}

TEST(Lowering, RandomConv2DIsBitExact) {
  runMany("CONV_2D", 600, 11, [](Rng& r) { return randomConv(r, Kind::kConv); });
}

TEST(Lowering, RandomDepthwiseConv2DIsBitExact) {
  runMany("DEPTHWISE_CONV_2D", 600, 12, [](Rng& r) { return randomConv(r, Kind::kDepthwise); });
}

TEST(Lowering, RandomGroupedConv2DIsBitExact) {
  runMany("GROUPED_CONV_2D", 400, 13, [](Rng& r) { return randomConv(r, Kind::kGrouped); });
}

TEST(Lowering, RandomFullyConnectedIsBitExact) {
  runMany("FULLY_CONNECTED", 400, 14, randomFullyConnected);
}

// FULLY_CONNECTED as the pointwise window convolution over channel tiles (what it is when
// a pool's or convolution's output feeds it on the device), forced: bit-exact.
TEST(Lowering, RandomFullyConnectedIsBitExactAsAPointwiseWindow) {
  Rng r(19);
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    Case c = randomFullyConnected(r);
    LoweringOptions o;
    o.convMapping = ConvMapping::kWindow;
    if (i % 4 == 3) o.npu = tinyNpu();
    NpuRun run;
    const std::string err = check(c, o, &run);
    if (err.find("does not apply") != std::string::npos) continue;  // tiny INP, deep input
    ++checked;
    EXPECT_EQ(err, "") << "case " << i << " (" << c.what << ")";
    if (!err.empty()) continue;
    EXPECT_NE(run.step.report.mapping.find("1x1 convolution"), std::string::npos)
        << run.step.report.mapping;
    EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << "case " << i;
  }
  std::printf("[ FULLY_CONNECTED ] %d of 200 random layers as pointwise windows, bit-exact\n",
              checked);
  EXPECT_GT(checked, 150);
}

// A classifier's one pixel is loaded once per INP slot, not once per phase of its weights:
// a step whose A pieces the slot holds already loads none (the GEMM engine's slotHolds).
TEST(Lowering, AClassifiersPixelLoadsOncePerSlot) {
  Rng r(41);
  OneOpModel m;
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const uint32_t in = m.input(t, {1, 1024}, r.values<int8_t>(1024, -128, 127), 0.05f, 3);
  const uint32_t w = m.constant(t, {1000, 1024}, r.values<int8_t>(1024000, -128, 127), 0.01f, 0);
  const uint32_t bias = m.constant(kI32, {1000}, r.values<int32_t>(1000, -5000, 5000), 0.0005f, 0);
  const uint32_t out = m.output(t, {1, 1000}, 0.5f, -5);
  m.op(OperationType::FULLY_CONNECTED, {in, w, bias, m.i32(0)}, {out});
  const Case c{"FULLY_CONNECTED 1024 -> 1000", m.build(), m.inputs()};
  LoweringOptions o;
  o.convMapping = ConvMapping::kWindow;
  NpuRun run;
  ASSERT_EQ(check(c, o, &run), "");
  uint64_t constants = 0;
  for (const StepBuffer& b : run.step.buffers)
    if (b.role == BufferRole::kConstant) constants += b.bytes;
  EXPECT_GT(run.step.report.phases, 2u) << run.step.report.describe();
  // The weights and parameters once, the pixel's 1,024 bytes into each of two slots.
  EXPECT_LE(run.step.report.loadBytes, constants + 2 * 1024) << run.step.report.describe();
  EXPECT_EQ(run.estimatedCycles, run.stats.cycles);
}

// DWCONV's shared input rows: when a step's row tiles cover whole output rows the input rows
// load whole (one DMA row of W*C bytes per image row, the column blocks' overlap once),
// and the layer stays bit-exact.
TEST(Lowering, DepthwiseStepsLoadWholeInputRows) {
  Rng r(43);
  OneOpModel m;
  const OperandType t = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const uint32_t h = 20, w = 56, c = 16;
  const uint32_t in = m.input(t, {1, h, w, c}, r.values<int8_t>(h * w * c, -128, 127), 0.05f, 2);
  const uint32_t f = m.constant(t, {1, 3, 3, c}, r.values<int8_t>(9 * c, -128, 127), 0.02f, 0);
  const uint32_t bias = m.constant(kI32, {c}, r.values<int32_t>(c, -500, 500), 0.001f, 0);
  const uint32_t out = m.output(t, {1, h, w, c}, 0.08f, -3);
  m.op(OperationType::DEPTHWISE_CONV_2D,
       {in, f, bias, m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {out});
  const Case cs{"DEPTHWISE_CONV_2D 3x3 [1, 20, 56, 16]", m.build(), m.inputs()};
  LoweringOptions o;
  o.convMapping = ConvMapping::kDepthwiseUnit;
  NpuRun run;
  ASSERT_EQ(check(cs, o, &run), "");
  int wholeRows = 0;
  for (const firmware::Command& cmd : run.step.commands)
    if (const auto* d = std::get_if<firmware::DmaLoad>(&cmd.args);
        d && d->bufId == firmware::Buffer::kInp && !d->fill && d->count0 == w * c)
      ++wholeRows;
  EXPECT_GT(wholeRows, 0) << run.step.report.describe();
  EXPECT_EQ(run.estimatedCycles, run.stats.cycles);
}

// A random quantized AVERAGE_POOL_2D; `clipped` says whether some window reaches into the
// padding (its count then differs: the CPU's case).
Case randomAveragePool(Rng& r, bool* clipped) {
  OneOpModel m;
  const bool isSigned = r.coin();
  const OperandType t = isSigned ? kS8 : kU8;
  const int32_t qlo = isSigned ? -128 : 0, qhi = isSigned ? 127 : 255;
  const uint32_t batches = r.coin(0.8) ? 1 : 2, c = r.range(1, 70);
  const int32_t fh = r.range(1, 7), fw = r.range(1, 7), sh = r.range(1, 3), sw = r.range(1, 2);
  const bool global = r.coin(0.3);  // the window is the whole plane
  const uint32_t inH = global ? fh : r.range(fh, fh + 12), inW = global ? fw : r.range(fw, fw + 20);
  int32_t pt = 0, pb = 0, pl = 0, pr = 0;
  if (r.coin(0.25)) {
    pt = r.range(0, fh - 1);
    pb = r.range(0, fh - 1);
    pl = r.range(0, fw - 1);
    pr = r.range(0, fw - 1);
  }
  const uint32_t outH = (inH + pt + pb - fh) / sh + 1, outW = (inW + pl + pr - fw) / sw + 1;
  *clipped = pt > 0 || pl > 0 || (outH - 1) * sh + fh > int64_t{inH} ||
             (outW - 1) * sw + fw > int64_t{inW};
  const float scale = r.real(0.01f, 0.1f);
  const int32_t zp = r.range(qlo, qhi);
  const size_t n = size_t{batches} * inH * inW * c;
  // Sometimes every value at an extreme: the sums at the ends of the divider's range.
  const int extreme = r.range(0, 5);
  const int32_t lo = extreme == 0 ? qhi : qlo, hi = extreme == 1 ? qlo : qhi;
  const uint32_t in =
      isSigned ? m.input(t, {batches, inH, inW, c}, r.values<int8_t>(n, lo, hi), scale, zp)
               : m.input(t, {batches, inH, inW, c}, r.values<uint8_t>(n, lo, hi), scale, zp);
  const int32_t activation = r.range(0, 3);
  const uint32_t out = m.output(t, {batches, outH, outW, c}, scale, zp);
  m.op(OperationType::AVERAGE_POOL_2D,
       {in, m.i32(pl), m.i32(pr), m.i32(pt), m.i32(pb), m.i32(sw), m.i32(sh), m.i32(fw), m.i32(fh),
        m.i32(activation)},
       {out});
  std::ostringstream what;
  what << "AVERAGE_POOL_2D " << (isSigned ? "s8" : "u8") << " in " << batches << "x" << inH << "x"
       << inW << "x" << c << " filter " << fh << "x" << fw << " stride " << sh << "x" << sw
       << " pad t" << pt << " b" << pb << " l" << pl << " r" << pr << " act " << activation;
  return Case{what.str(), m.build(), m.inputs()};
}

// Unclipped average pools run on the depthwise unit, bit-exact (the divider is chosen
// for every reachable sum); clipped ones on the pooling unit, each window divided by its
// own count.
TEST(Lowering, AveragePoolsRunOnTheDepthwiseOrThePoolingUnit) {
  Rng r(43);
  const hal::ExecutionPreference prefs[] = {hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                            hal::ExecutionPreference::SUSTAINED_SPEED,
                                            hal::ExecutionPreference::LOW_POWER};
  int onDepthwise = 0, onPooling = 0, clippedCount = 0;
  for (int i = 0; i < 300; ++i) {
    bool clipped = false;
    Case c = randomAveragePool(r, &clipped);
    LoweringOptions o;
    o.preference = prefs[i % 3];
    if (i % 5 == 4) o.maxJobCommands = 160;
    NpuRun run;
    const std::string err = check(c, o, &run);
    // The depthwise unit, or (clipped windows, no exact divider, a row tile wider than
    // its piece) the pooling unit (ISA 1.7): never the CPU.
    EXPECT_EQ(err, "") << "case " << i << " (" << c.what << ")";
    if (!err.empty()) continue;
    const std::string& mapping = run.step.report.mapping;
    const bool dw = mapping.find("average pool as a depthwise") != std::string::npos;
    onDepthwise += dw;
    onPooling += mapping.find("POOL on the pooling unit") != std::string::npos;
    if (clipped) {
      ++clippedCount;
      EXPECT_FALSE(dw) << c.what;
      EXPECT_NE(mapping.find("POOLs of their parts"), std::string::npos) << c.what;
    }
    EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << "case " << i;
  }
  std::printf(
      "[ AVERAGE_POOL_2D ] %d on the depthwise unit, %d on the pooling unit (%d of them "
      "clipped), bit-exact\n",
      onDepthwise, onPooling, clippedCount);
  EXPECT_GT(onDepthwise, 150);
  EXPECT_GT(clippedCount, 40);
  EXPECT_EQ(onDepthwise + onPooling, 300);
}

// The global pools of real networks (7x7 before MobileNet's and ResNet's classifiers) and
// every odd window count have an exact divider for both 8-bit types.
TEST(Lowering, EveryOddWindowOfTheDepthwiseUnitHasAnExactDivider) {
  for (const bool isSigned : {false, true})
    for (int32_t fh = 1; fh <= 7; ++fh)
      for (int32_t fw = 1; fw <= 7; ++fw) {
        if ((fh * fw) % 2 == 0) continue;
        OneOpModel m;
        const OperandType t = isSigned ? kS8 : kU8;
        const uint32_t in = isSigned ? m.input(t, {1, uint32_t(fh), uint32_t(fw), 3},
                                               std::vector<int8_t>(size_t(fh) * fw * 3), 0.1f, 0)
                                     : m.input(t, {1, uint32_t(fh), uint32_t(fw), 3},
                                               std::vector<uint8_t>(size_t(fh) * fw * 3), 0.1f, 0);
        const uint32_t out = m.output(t, {1, 1, 1, 3}, 0.1f, 0);
        m.op(OperationType::AVERAGE_POOL_2D,
             {in, m.i32(ops::conv::kPaddingValid), m.i32(1), m.i32(1), m.i32(fw), m.i32(fh),
              m.i32(0)},
             {out});
        const hal::Model model = m.build();
        EXPECT_TRUE(npuSupport(model, 0, declaredShapes(model)).ok())
            << fh << "x" << fw << (isSigned ? " int8: " : " uint8: ")
            << npuSupport(model, 0, declaredShapes(model)).error();
      }
}

TEST(Lowering, RandomBatchMatmulIsBitExact) { runMany("BATCH_MATMUL", 400, 15, randomBatchMatmul); }

// Every convolution mapping on its own (the automatic choice rarely picks the DMA-gathered
// ones on this NPU): bit-exact wherever it applies, on the real and the tiny NPU, under
// every preference and with short jobs.
TEST(Lowering, RandomConvolutionsAreBitExactOnEveryMapping) {
  const ConvMapping mappings[] = {ConvMapping::kHostIm2col,     ConvMapping::kDmaIm2col,
                                  ConvMapping::kShiftedWindows, ConvMapping::kOutputBlocks,
                                  ConvMapping::kWindow,         ConvMapping::kDepthwiseUnit,
                                  ConvMapping::kRawWindow};
  const char* names[] = {"host im2col", "DMA im2col", "shifted windows", "output blocks",
                         "window",      "dwconv",     "raw window"};
  const hal::ExecutionPreference prefs[] = {hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                            hal::ExecutionPreference::SUSTAINED_SPEED,
                                            hal::ExecutionPreference::LOW_POWER};
  for (int m = 0; m < 7; ++m) {
    Rng r(31 + m);
    int applied = 0;
    const bool raw = mappings[m] == ConvMapping::kRawWindow;
    for (int i = 0; i < 240; ++i) {
      // The depthwise unit runs depthwise layers only, the raw window CONV_2D layers of few
      // input channels (fw * inC <= C): every case is one for them.
      const Kind kind = mappings[m] == ConvMapping::kDepthwiseUnit ? Kind::kDepthwise
                        : raw || i % 3 == 0                        ? Kind::kConv
                        : i % 3 == 1                               ? Kind::kDepthwise
                                                                   : Kind::kGrouped;
      ConvSize size;
      if (raw) size.maxC = 5;
      Case c = randomConv(r, kind, size);
      LoweringOptions o;
      o.convMapping = mappings[m];
      o.preference = prefs[i % 3];
      if (i % 4 == 3) o.npu = tinyNpu();
      if (i % 5 == 4 && i % 4 != 3) o.maxJobCommands = 160;
      NpuRun run;
      const std::string err = check(c, o, &run);
      if (err.find("no mapping applies") != std::string::npos) continue;
      ++applied;
      EXPECT_EQ(err, "") << names[m] << " case " << i << " (" << c.what << ")";
      if (err.empty())
        EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << names[m] << " case " << i;
    }
    std::printf("[ %s ] %d of 240 random convolutions mapped, bit-exact\n", names[m], applied);
    EXPECT_GT(applied, 40) << names[m];
  }
}

// The automatic mapping search stops each candidate's estimates at the best one's cost
// (LoweringOptions::cycleLimit); it must still pick what an exhaustive search picks: the
// cheapest end to end of the mappings lowered one by one without a limit, the earliest on
// a tie, with the same commands and estimate.
// Strided 1x1 convolutions (ResNet's projection shortcuts) in packed rows: the window
// mapping's lanes run across output rows at the stride, whatever the output width against
// the array's R lanes (narrower, equal, wider), over batches, strides along either axis or
// both, 8-bit and int16 (16x8), on the real buffers and on a tiny NPU; every one bit-exact
// with its compile-time estimate equal to the interpreter's cycles.
TEST(Lowering, StridedPointwiseRunsInPackedRows) {
  Rng r(77);
  int packed = 0;
  for (int i = 0; i < 120; ++i) {
    const bool wide = i % 5 == 4;
    const bool isSigned = wide || r.coin();
    const OperandType t = wide ? OperandType::TENSOR_QUANT16_SYMM : isSigned ? kS8 : kU8;
    const int32_t sh = r.range(1, 3), sw = sh == 1 ? r.range(2, 3) : r.range(1, 3);
    const uint32_t n = static_cast<uint32_t>(r.range(1, 2));
    const uint32_t outW = static_cast<uint32_t>(r.range(1, 40)),
                   outH = static_cast<uint32_t>(r.range(1, 9));
    const uint32_t inH = (outH - 1) * sh + 1 + static_cast<uint32_t>(r.range(0, sh - 1));
    const uint32_t inW = (outW - 1) * sw + 1 + static_cast<uint32_t>(r.range(0, sw - 1));
    const uint32_t ic = static_cast<uint32_t>(r.range(1, 40)),
                   oc = static_cast<uint32_t>(r.range(1, 40));
    OneOpModel m;
    m.quant16x8(wide);
    const int32_t qlo = wide       ? -32768
                        : isSigned ? -128
                                   : 0,
                  qhi = wide       ? 32767
                        : isSigned ? 127
                                   : 255;
    const float inScale = r.real(0.01f, 0.1f), wScale = r.real(0.005f, 0.05f);
    const int32_t inZp = wide ? 0 : r.range(qlo, qhi);
    const size_t e = size_t{n} * inH * inW * ic;
    uint32_t in;
    if (wide) {
      in = m.input(t, {n, inH, inW, ic}, r.values<int16_t>(e, -3000, 3000), inScale, 0);
    } else if (isSigned) {
      in = m.input(t, {n, inH, inW, ic}, r.values<int8_t>(e, qlo, qhi), inScale, inZp);
    } else {
      in = m.input(t, {n, inH, inW, ic}, r.values<uint8_t>(e, qlo, qhi), inScale, inZp);
    }
    const OperandType wt = wide ? OperandType::TENSOR_QUANT8_SYMM : t;
    const int32_t wZp = wide ? 0 : r.range(qlo + 20, qhi - 20);
    const uint32_t w = wide ? m.constant(wt, {oc, 1, 1, ic},
                                         r.values<int8_t>(size_t{oc} * ic, -127, 127), wScale, 0)
                       : isSigned
                           ? m.constant(wt, {oc, 1, 1, ic},
                                        r.values<int8_t>(size_t{oc} * ic, qlo, qhi), wScale, wZp)
                           : m.constant(wt, {oc, 1, 1, ic},
                                        r.values<uint8_t>(size_t{oc} * ic, qlo, qhi), wScale, wZp);
    const uint32_t bias =
        m.constant(kI32, {oc}, r.values<int32_t>(oc, -500, 500), inScale * wScale, 0);
    const float outScale = inScale * wScale * static_cast<float>(ic) * (wide ? 40.0f : 8.0f);
    const uint32_t out = m.output(t, {n, outH, outW, oc}, outScale, wide ? 0 : r.range(qlo, qhi));
    m.op(OperationType::CONV_2D,
         {in, w, bias, m.i32(0), m.i32(0), m.i32(0), m.i32(0), m.i32(sw), m.i32(sh), m.i32(0)},
         {out});
    Case c{"", m.build(), m.inputs()};
    std::ostringstream what;
    what << "1x1 stride " << sh << "x" << sw << " [" << n << "," << inH << "," << inW << "," << ic
         << "] -> " << outH << "x" << outW << "x" << oc << (wide ? " int16" : "");
    LoweringOptions o;
    o.convMapping = ConvMapping::kWindow;
    // The tiny NPU's 1 KiB INP holds two pieces of (R - 1) * sw + 1 8-bit vectors for
    // sw <= 2 only.
    if (i % 3 == 2 && sw <= 2 && !wide) o.npu = tinyNpu();
    NpuRun run;
    const std::string err = check(c, o, &run);
    ASSERT_EQ(err, "") << "case " << i << " (" << what.str() << ")";
    // A row stride over 1 leaves packed rows the only window (a row tile's span of
    // (R-1)*sw + 1 vectors passes the ordinary piece); at row stride 1 the cheaper one.
    const bool isPacked = run.step.report.mapping.find("packed rows") != std::string::npos;
    if (sw > 1) EXPECT_TRUE(isPacked) << what.str() << ": " << run.step.report.mapping;
    EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << what.str();
    packed += isPacked;
  }
  std::printf("[ packed rows ] 120 strided 1x1 convolutions bit-exact, %d in packed rows\n",
              packed);
  EXPECT_GT(packed, 80);
}

// A layer of one channel tile (MobileNet-v2's first projection, 32 -> 16) alternates its
// steps between the halves of ACC, so a step's GEMMs do not wait for the REQUANT_STORE
// reading the step before it: bit-exact, the estimate the run's cycles.
TEST(Lowering, OneTileStepsAlternateTheHalvesOfAcc) {
  Rng r(11);
  OneOpModel m;
  const uint32_t in =
      m.input(kS8, {1, 40, 40, 32}, r.values<int8_t>(40 * 40 * 32, -128, 127), 0.05f, 3);
  const uint32_t w =
      m.constant(kS8, {16, 1, 1, 32}, r.values<int8_t>(16 * 32, -128, 127), 0.02f, 0);
  const uint32_t bias = m.constant(kI32, {16}, r.values<int32_t>(16, -500, 500), 0.001f, 0);
  const uint32_t out = m.output(kS8, {1, 40, 40, 16}, 0.3f, -4);
  m.op(OperationType::CONV_2D, {in, w, bias, m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {out});
  Case c{"", m.build(), m.inputs()};
  LoweringOptions o;
  o.convMapping = ConvMapping::kWindow;
  NpuRun run;
  ASSERT_EQ(check(c, o, &run), "");
  EXPECT_EQ(run.estimatedCycles, run.stats.cycles);
  const uint32_t half = o.npu.accBytes / 2;
  int low = 0, high = 0;
  for (const firmware::Command& cmd : run.step.commands)
    if (const auto* g = std::get_if<firmware::Gemm>(&cmd.args)) (g->accAddr < half ? low : high)++;
  EXPECT_GT(low, 0);
  EXPECT_GT(high, 0);
}

// A 3x3 convolution on a 7x7 map (ResNet-50's last stage) in packed rows: 7 of 9 lanes per
// output row work, where a row tile per output row uses 7 of 16; bit-exact, and cheaper by
// the estimate than the ordinary window mapping.
TEST(Lowering, NarrowMapsRunInPackedRows) {
  Rng r(5);
  OneOpModel m;
  const uint32_t in =
      m.input(kS8, {1, 7, 7, 64}, r.values<int8_t>(7 * 7 * 64, -128, 127), 0.05f, 3);
  const uint32_t w =
      m.constant(kS8, {48, 3, 3, 64}, r.values<int8_t>(48 * 9 * 64, -127, 127), 0.01f, 0);
  const uint32_t bias = m.constant(kI32, {48}, r.values<int32_t>(48, -1000, 1000), 0.0005f, 0);
  const uint32_t out = m.output(kS8, {1, 7, 7, 48}, 0.5f, -4);
  m.op(OperationType::CONV_2D,
       {in, w, bias, m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(0)}, {out});
  Case c{"3x3 on 7x7", m.build(), m.inputs()};
  LoweringOptions o;
  o.convMapping = ConvMapping::kWindow;
  NpuRun run;
  ASSERT_EQ(check(c, o, &run), "");
  EXPECT_NE(run.step.report.mapping.find("packed rows: 7 of 9 lanes"), std::string::npos)
      << run.step.report.mapping;
}

TEST(Lowering, TheMappingSearchPicksTheCheapestMapping) {
  const ConvMapping mappings[] = {ConvMapping::kHostIm2col,     ConvMapping::kDmaIm2col,
                                  ConvMapping::kShiftedWindows, ConvMapping::kOutputBlocks,
                                  ConvMapping::kWindow,         ConvMapping::kDepthwiseUnit,
                                  ConvMapping::kRawWindow};
  const hal::ExecutionPreference prefs[] = {hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                            hal::ExecutionPreference::SUSTAINED_SPEED,
                                            hal::ExecutionPreference::LOW_POWER};
  Rng r(77);
  // Real layers after the random ones: person_detect's first (1 channel, multiplier 8,
  // where the host im2col plan wins only by its late loads) and MobileNet's at every
  // width, where the losing mappings run long and FAST tries several phase sizes.
  struct Layer {
    uint32_t h, w, inC, outC, f;
    int32_t stride;
    uint32_t multiplier;
  };
  const Layer layers[] = {
      {96, 96, 1, 0, 3, 2, 8},     {48, 48, 8, 0, 3, 1, 1},   {48, 48, 8, 16, 1, 1, 0},
      {56, 56, 64, 0, 3, 2, 1},    {28, 28, 128, 0, 3, 1, 1}, {28, 28, 128, 128, 1, 1, 0},
      {14, 14, 256, 0, 3, 2, 1},   {14, 14, 512, 0, 3, 1, 1}, {7, 7, 512, 0, 3, 1, 1},
      {14, 14, 256, 512, 1, 1, 0}, {56, 56, 32, 64, 1, 1, 0}, {112, 112, 3, 32, 3, 2, 0}};
  const int randomCases = 300, cases = randomCases + 3 * int(std::size(layers));
  int contested = 0;
  for (int i = 0; i < cases; ++i) {
    const Kind kind = i % 3 == 0 ? Kind::kConv : i % 3 == 1 ? Kind::kDepthwise : Kind::kGrouped;
    Case c;
    if (i < randomCases) {
      c = randomConv(r, kind);
    } else {
      const Layer& l = layers[(i - randomCases) / 3];
      c = networkLayer(r, l.h, l.w, l.inC, l.outC, l.f, l.stride, l.multiplier);
    }
    LoweringOptions o;
    o.preference = prefs[i % 3];
    if (i % 4 == 3) o.npu = tinyNpu();
    const auto shapes = declaredShapes(c.model);
    auto chosen = lowerOperation(c.model, 0, shapes, o);
    std::optional<CompiledStep> best;
    double bestCost = 0;
    int applied = 0;
    for (ConvMapping m : mappings) {
      LoweringOptions one = o;
      one.convMapping = m;
      auto step = lowerOperation(c.model, 0, shapes, one);
      if (!step.ok()) continue;
      ++applied;
      // The search's own cost: end to end, or under LOW_POWER the estimated energy.
      const double cost = o.preference == hal::ExecutionPreference::LOW_POWER
                              ? estimatedEnergyPj(c.model, *step, o)
                              : endToEndCycles(c.model, *step, o);
      if (!best || cost < bestCost) {
        best = std::move(*step);
        bestCost = cost;
      }
    }
    ASSERT_EQ(chosen.ok(), best.has_value()) << "case " << i << " (" << c.what << ")";
    if (!best) continue;
    contested += applied > 1;
    EXPECT_EQ(chosen->report.mapping, best->report.mapping)
        << "case " << i << " (" << c.what << ")";
    EXPECT_EQ(chosen->report.estimatedCycles, best->report.estimatedCycles) << "case " << i;
    EXPECT_TRUE(chosen->commands == best->commands) << "case " << i << " (" << c.what << ")";
  }
  EXPECT_GT(contested, 120);
}

// A job budget smaller than one row tile's commands is refused (the operation then stays
// on the CPU), never cut inside a row tile's accumulation.
TEST(Lowering, JobBudgetBelowARowTileIsRefused) {
  Rng r(21);
  Case c = randomConv(r, Kind::kConv);
  LoweringOptions o;
  o.maxJobCommands = 6;
  auto step = lowerOperation(c.model, 0, declaredShapes(c.model), o);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().find("more than a job of 6"), std::string::npos) << step.error();
  auto plan = compileModel(c.model, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->operations[0].placement.target, Target::kCpu);
  EXPECT_NE(plan->operations[0].placement.reason.find("lowering failed"), std::string::npos);
}

}  // namespace
}  // namespace nncosim::driver::test

namespace nncosim::driver::test {
namespace {

// A uint8 TRANSPOSE_CONV_2D 3x3, stride 1, input [1, 3, 3, 2], with explicit paddings.
hal::Model transposeConv(int32_t padTop) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kU8, {1, 3, 3, 2}, 0.5f, 128);
  const std::vector<uint8_t> w(2 * 3 * 3 * 2, 130);
  const uint32_t filter = b.addConstant(kU8, {2, 3, 3, 2}, w.data(), w.size(), 0.5f, 128);
  const uint32_t bias = b.addConstant(kI32, {2}, std::vector<int32_t>{4, -4}, 0.25f, 0);
  const uint32_t outH = static_cast<uint32_t>(3 + 3 - 1 - padTop);
  std::vector<uint32_t> args = {in, filter, bias};
  for (int32_t v : {0, 0, padTop, 0, 1, 1, 0}) args.push_back(b.addInt32(v));
  args.push_back(b.addBool(false));
  b.addOperation(hal::OperationType::TRANSPOSE_CONV_2D, args,
                 {b.addOutput(kU8, {1, outH, 5, 2}, 1.0f, 128)});
  return b.build();
}

// A top padding up to the filter size - 1 runs on the MAC array; one reaching past it
// (the equivalent convolution would start inside the input) stays on the CPU, saying why.
TEST(Lowering, TransposeConvPaddingPastTheFilterStaysOnTheCpu) {
  const Partition inside = partition(transposeConv(2));
  ASSERT_EQ(inside.operations.size(), 1u);
  EXPECT_EQ(inside.operations[0].target, Target::kNpu) << inside.operations[0].reason;
  const Partition past = partition(transposeConv(3));
  ASSERT_EQ(past.operations.size(), 1u);
  EXPECT_EQ(past.operations[0].target, Target::kCpu);
  EXPECT_NE(past.operations[0].reason.find("padding top 3, left 0 beyond the filter (3x3 - 1)"),
            std::string::npos)
      << past.operations[0].reason;
}

}  // namespace
}  // namespace nncosim::driver::test
