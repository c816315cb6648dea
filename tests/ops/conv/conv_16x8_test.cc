// The 16x8 quantization mode of the conv family through the executor (int16
// activations, int8 symmetric weights, int64 accumulation; docs/quantization.md
// "16x8 mode"): hand-computed layers (one whose sum exceeds int32), random layers against
// a naive int64 model written here without ops/conv's code, and the signatures the mode
// accepts and rejects.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "tests/ops/conv/conv_test_util.h"

namespace nncosim::ops::conv_test {
namespace {

constexpr OperandType kQ16 = OperandType::TENSOR_QUANT16_SYMM;
constexpr OperandType kQ8Symm = OperandType::TENSOR_QUANT8_SYMM;
constexpr OperandType kPerChannel = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
constexpr OperandType kS8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;
constexpr int32_t kSame = 1, kValid = 2;
constexpr int32_t kRelu6 = 3;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// --- hand-computed layers ---------------------------------------------------------------

TEST(Conv16x8, HandComputedConv2D) {
  // M_real = float(0.5 * 0.25) / 1 = 0.125: M = 2^30, shift -2, reduced multiplier 2^14,
  // total shift 17, so y = floor(acc / 8 + 1/2).
  OneOp m;
  m.quant16x8();
  const uint32_t in = m.input<int16_t>(kQ16, {1, 2, 2, 1}, {1000, -2000, 3000, 4000}, 0.5f);
  const uint32_t f = m.constant<int8_t>(kQ8Symm, {2, 2, 2, 1}, {1, 2, -3, 4, 1, 1, 1, 1}, 0.25f);
  const uint32_t b = m.constant<int32_t>(kI32, {2}, {100, -4}, 0.125f);
  const uint32_t out = m.output(kQ16, {1, 1, 1, 2}, 1.0f);
  m.op(OperationType::CONV_2D, {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(0)}, {out});
  ASSERT_EQ(m.run(), "");
  // acc0 = 100 + 1000 - 4000 - 9000 + 16000 = 4100 -> 512.5 -> 513 (tie toward +inf);
  // acc1 = -4 + 6000 = 5996 -> 749.5 -> 750.
  EXPECT_EQ(m.result<int16_t>(), (std::vector<int16_t>{513, 750}));
}

TEST(FullyConnected16x8, SumBeyondInt32IsExact) {
  // 600 products of 32767 * 127: acc = 2,496,845,400 > 2^31. Output scale 2^17 with unit
  // input and weight scales: y = floor(acc / 2^17 + 1/2). A wrapping int32 sum would give
  // -1,798,121,896 -> -13718 instead.
  OneOp m;
  m.quant16x8();
  const uint32_t n = 600;
  std::vector<int8_t> w(2 * n, 127);
  std::fill(w.begin() + n, w.end(), -127);
  const uint32_t in = m.input<int16_t>(kQ16, {1, n}, std::vector<int16_t>(n, 32767), 1.0f);
  const uint32_t wt = m.constant<int8_t>(kQ8Symm, {2, n}, w, 1.0f);
  const uint32_t b = m.constant<int32_t>(kI32, {2}, {0, 65536}, 1.0f);
  const uint32_t out = m.output(kQ16, {1, 2}, 131072.0f);
  m.op(OperationType::FULLY_CONNECTED, {in, wt, b, m.i32(0)}, {out});
  ASSERT_EQ(m.run(), "");
  // 19049.42 -> 19049; (-2,496,845,400 + 65536) / 2^17 = -19048.92 -> -19049.
  EXPECT_EQ(m.result<int16_t>(), (std::vector<int16_t>{19049, -19049}));
}

TEST(DepthwiseConv16x8, HandComputedPerChannelRelu6) {
  // Input [1, 1, 3, 2] at scale 0.5, filter [1, 1, 2, 2] with channel scales 1/32 and
  // 1/4, output scale 1/16: M_real 0.25 (channel 0) and 2 (channel 1); RELU6 clamps to
  // [0, round(6 * 16)] = [0, 96].
  OneOp m;
  m.quant16x8();
  const uint32_t in = m.input<int16_t>(kQ16, {1, 1, 3, 2}, {100, -100, 170, 300, -5, 50}, 0.5f);
  const uint32_t f = m.constant<int8_t>(kPerChannel, {1, 1, 2, 2}, {2, 4, -1, 1});
  m.channelQuant(f, {1.0f / 32, 0.25f}, 3);
  const uint32_t b = m.constant<int32_t>(kI32, {2}, {10, -20});
  const uint32_t out = m.output(kQ16, {1, 1, 2, 2}, 1.0f / 16);
  m.op(OperationType::DEPTHWISE_CONV_2D,
       {in, f, b, m.i32(kValid), m.i32(1), m.i32(1), m.i32(1), m.i32(kRelu6)}, {out});
  ASSERT_EQ(m.run(), "");
  // x=0: c0 = 10 + 200 - 170 = 40 -> 10;  c1 = -20 - 400 + 300 = -120 -> -240 -> 0.
  // x=1: c0 = 10 + 340 + 5 = 355 -> 88.75 -> 89;  c1 = -20 + 1200 + 50 = 1230 -> 2460 -> 96.
  EXPECT_EQ(m.result<int16_t>(), (std::vector<int16_t>{10, 0, 89, 96}));
}

// --- random layers against a naive int64 model ------------------------------------------

// The requantization spelled out independently: TFLite's QuantizeMultiplier, the Q15
// reduction and one rounding shift in 128-bit arithmetic (the int64 product cannot wrap
// for these layers), the result's low 32 bits (TFLite's int64 -> int32 conversion), then
// the int16 activation clamp.
struct NaiveRequant {
  int64_t reduced = 0;
  int totalShift = 0;
  int32_t lo = -32768, hi = 32767;

  NaiveRequant(double real, float outScale, int32_t activation) {
    int e = 0;
    const double q = std::frexp(real, &e);
    int64_t m = std::llround(q * 2147483648.0);
    if (m == (int64_t{1} << 31)) {
      m /= 2;
      ++e;
    }
    if (real == 0.0 || e < -31) {
      m = 0;
      e = 0;
    }
    reduced = m >= 0x7FFF0000 ? 0x7FFF : (m + (1 << 15)) >> 16;
    totalShift = 15 - e;
    const auto code = [&](float f) {
      const double r = std::round(static_cast<double>(f / outScale));  // float division
      return static_cast<int32_t>(std::min(std::max(r, -2147483648.0), 2147483647.0));
    };
    if (activation == 1) lo = 0;
    if (activation == 2) lo = std::max(lo, code(-1.0f)), hi = std::min(hi, code(1.0f));
    if (activation == 3) lo = 0, hi = std::min(hi, code(6.0f));
  }
  int16_t operator()(int64_t acc) const {
    const __int128 p = static_cast<__int128>(acc) * reduced + (__int128{1} << (totalShift - 1));
    const auto y64 = static_cast<int64_t>(p >> totalShift);  // floor
    const auto y = static_cast<int32_t>(static_cast<uint32_t>(y64));
    return static_cast<int16_t>(std::min<int64_t>(std::max<int64_t>(y, lo), hi));
  }
};

// NNAPI's multiplier: the scale product rounded to float, then divided in double.
double realMultiplier(float inScale, float wScale, float outScale) {
  const float product = inScale * wScale;
  return static_cast<double>(product) / static_cast<double>(outScale);
}

enum class Kind { kConv, kDepthwise, kGrouped };

struct Layer {
  Kind kind = Kind::kConv;
  uint32_t batches = 1, inH = 1, inW = 1, inC = 1, outC = 1, fH = 1, fW = 1;
  int32_t strideH = 1, strideW = 1, dilH = 1, dilW = 1;
  int32_t padT = 0, padB = 0, padL = 0, padR = 0;
  int32_t scheme = 0;  // 0: explicit padding, else kSame / kValid
  uint32_t extra = 1;  // depth multiplier / groups
  bool layoutFlag = false, nchw = false, dilationInputs = false, perChannel = false;
  int32_t activation = 0;
  uint32_t outH = 0, outW = 0;

  std::string describe() const {
    std::ostringstream os;
    os << (kind == Kind::kConv        ? "CONV_2D"
           : kind == Kind::kDepthwise ? "DEPTHWISE"
                                      : "GROUPED")
       << " in " << batches << "x" << inH << "x" << inW << "x" << inC << " out " << outH << "x"
       << outW << "x" << outC << " filter " << fH << "x" << fW << " stride " << strideH << ","
       << strideW << " dilation " << dilH << "," << dilW << " pads " << padT << "," << padB << ","
       << padL << "," << padR << " scheme " << scheme << " extra " << extra << " nchw " << nchw
       << " perChannel " << perChannel << " act " << activation;
    return os.str();
  }
};

// Random operand values: full-range int16 and int8 codes, small codes (to reach large
// multipliers and positive shifts), or codes of one sign near the top of the range (sums
// of many such products pass int32).
struct ValueMode {
  int16_t xLo, xHi;
  int8_t wLo, wHi;
  double spread;  // expected |acc| scale per sqrt(taps) (or per tap when all one sign)
  bool oneSign;
};
ValueMode pickValues(std::mt19937& rng) {
  switch (rng() % 4) {
    case 0:
      return {-8, 8, -4, 4, 4.9 * 2.6, false};
    case 1:
      return {20000, 32767, 100, 127, 26000.0 * 113, true};
    default:
      return {-32768, 32767, -128, 127, 18918.0 * 73.9, false};
  }
}

template <typename T>
std::vector<T> randomCodes(std::mt19937& rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

int32_t uniform(std::mt19937& rng, int32_t lo, int32_t hi) {
  return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
}

// A random geometry whose parameters NNAPI accepts (output at least 1x1).
Layer randomLayer(std::mt19937& rng, Kind kind) {
  for (;;) {
    Layer l;
    l.kind = kind;
    l.batches = uniform(rng, 1, 2);
    l.inH = uniform(rng, 1, 9);
    l.inW = uniform(rng, 1, 9);
    l.fH = uniform(rng, 1, 4);
    l.fW = uniform(rng, 1, 4);
    l.strideH = uniform(rng, 1, 3);
    l.strideW = uniform(rng, 1, 3);
    switch (kind) {
      case Kind::kConv:
        l.inC = uniform(rng, 1, 6);
        l.outC = uniform(rng, 1, 6);
        break;
      case Kind::kDepthwise:
        l.inC = uniform(rng, 1, 5);
        l.extra = uniform(rng, 1, 3);
        l.outC = l.inC * l.extra;
        break;
      case Kind::kGrouped:
        l.extra = uniform(rng, 1, 3);
        l.inC = l.extra * uniform(rng, 1, 3);
        l.outC = l.extra * uniform(rng, 1, 3);
        break;
    }
    // GROUPED_CONV_2D: layout flag always, no dilation.
    const int form = kind == Kind::kGrouped ? 1 : uniform(rng, 0, 2);
    l.layoutFlag = form >= 1;
    l.dilationInputs = form == 2;
    l.nchw = l.layoutFlag && rng() % 2;
    if (l.dilationInputs) {
      l.dilH = uniform(rng, 1, 3);
      l.dilW = uniform(rng, 1, 3);
    }
    const int32_t effH = (static_cast<int32_t>(l.fH) - 1) * l.dilH + 1;
    const int32_t effW = (static_cast<int32_t>(l.fW) - 1) * l.dilW + 1;
    l.scheme = uniform(rng, 0, 2);  // 0 explicit, 1 SAME, 2 VALID
    const auto same = [](int32_t in, int32_t stride, int32_t eff, int32_t* head, int32_t* tail) {
      const int32_t out = (in + stride - 1) / stride;
      const int32_t total = std::max((out - 1) * stride + eff - in, 0);
      *head = total / 2;
      *tail = total - *head;
    };
    if (l.scheme == kSame) {
      same(l.inH, l.strideH, effH, &l.padT, &l.padB);
      same(l.inW, l.strideW, effW, &l.padL, &l.padR);
    } else if (l.scheme == 0) {
      l.padT = uniform(rng, 0, effH - 1);
      l.padB = uniform(rng, 0, effH - 1);
      l.padL = uniform(rng, 0, effW - 1);
      l.padR = uniform(rng, 0, effW - 1);
    }
    const int32_t spanH = static_cast<int32_t>(l.inH) + l.padT + l.padB - effH;
    const int32_t spanW = static_cast<int32_t>(l.inW) + l.padL + l.padR - effW;
    if (spanH < 0 || spanW < 0) continue;
    l.outH = static_cast<uint32_t>(spanH / l.strideH + 1);
    l.outW = static_cast<uint32_t>(spanW / l.strideW + 1);
    l.perChannel = rng() % 2;
    l.activation = uniform(rng, 0, 3);
    return l;
  }
}

// The naive model: every output element's int64 sum over its receptive field.
std::vector<int16_t> naiveConv(const Layer& l, const std::vector<int16_t>& nhwc,
                               const std::vector<int8_t>& w, const std::vector<int32_t>& bias,
                               const std::vector<NaiveRequant>& rq) {
  std::vector<int16_t> out;
  const uint32_t groups = l.kind == Kind::kGrouped ? l.extra : 1;
  const uint32_t depth = l.kind == Kind::kDepthwise ? 1 : l.inC / groups;  // filter depth
  for (uint32_t b = 0; b < l.batches; ++b)
    for (uint32_t oy = 0; oy < l.outH; ++oy)
      for (uint32_t ox = 0; ox < l.outW; ++ox)
        for (uint32_t oc = 0; oc < l.outC; ++oc) {
          int64_t acc = bias[oc];
          for (uint32_t ky = 0; ky < l.fH; ++ky)
            for (uint32_t kx = 0; kx < l.fW; ++kx) {
              const int64_t iy = int64_t{oy} * l.strideH - l.padT + int64_t{ky} * l.dilH;
              const int64_t ix = int64_t{ox} * l.strideW - l.padL + int64_t{kx} * l.dilW;
              if (iy < 0 || ix < 0 || iy >= l.inH || ix >= l.inW) continue;
              for (uint32_t k = 0; k < depth; ++k) {
                uint32_t ic;
                size_t wi;
                if (l.kind == Kind::kDepthwise) {
                  ic = oc / l.extra;
                  wi = (size_t{ky} * l.fW + kx) * l.outC + oc;
                } else {
                  ic = oc / (l.outC / groups) * depth + k;
                  wi = ((size_t{oc} * l.fH + ky) * l.fW + kx) * depth + k;
                }
                const size_t xi = ((size_t{b} * l.inH + iy) * l.inW + ix) * l.inC + ic;
                acc += int64_t{nhwc[xi]} * int64_t{w[wi]};
              }
            }
          out.push_back(rq[rq.size() == 1 ? 0 : oc](acc));
        }
  return out;
}

// [N, H, W, C] <-> [N, C, H, W].
template <typename T>
std::vector<T> toNchw(const std::vector<T>& v, uint32_t n, uint32_t h, uint32_t w, uint32_t c) {
  std::vector<T> r(v.size());
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t ch = 0; ch < c; ++ch)
          r[((size_t{b} * c + ch) * h + y) * w + x] = v[((size_t{b} * h + y) * w + x) * c + ch];
  return r;
}

// Per-channel (or one) weight scales, and an output scale that puts typical results at
// about 2^13 codes, from a little below to a little beyond the int16 range; small codes
// get multipliers up to ~2^6 (positive shifts).
struct Scales {
  float in = 0, out = 0;
  std::vector<float> w;
  int32_t biasMax = 0;  // bias codes in [-biasMax, biasMax], about a typical sum
};
Scales randomScales(std::mt19937& rng, const ValueMode& v, uint32_t channels, uint32_t taps) {
  Scales s;
  s.in = std::ldexp(1.0f + static_cast<float>(rng() % 1000) / 1000, -uniform(rng, 6, 16));
  for (uint32_t c = 0; c < channels; ++c)
    s.w.push_back(0.002f + static_cast<float>(rng() % 1000) * 2e-5f);
  const double typical = v.spread * (v.oneSign ? taps : std::sqrt(static_cast<double>(taps)));
  const double real = 8192.0 / typical * std::exp2(uniform(rng, -20, 20) / 10.0);
  s.out = static_cast<float>(static_cast<double>(s.in) * s.w[0] / real);
  s.biasMax = static_cast<int32_t>(std::min(typical, 1e9));
  return s;
}

void runRandomConv(Kind kind, uint32_t seed, int count) {
  std::mt19937 rng(seed);
  for (int t = 0; t < count; ++t) {
    const Layer l = randomLayer(rng, kind);
    SCOPED_TRACE("case " + std::to_string(t) + ": " + l.describe());
    const ValueMode v = pickValues(rng);
    const uint32_t groups = kind == Kind::kGrouped ? l.extra : 1;
    const uint32_t depth = kind == Kind::kDepthwise ? 1 : l.inC / groups;
    const Scales s = randomScales(rng, v, l.perChannel ? l.outC : 1, l.fH * l.fW * depth);
    const std::vector<int16_t> x =
        randomCodes<int16_t>(rng, size_t{l.batches} * l.inH * l.inW * l.inC, v.xLo, v.xHi);
    const std::vector<uint32_t> wDims = kind == Kind::kDepthwise
                                            ? std::vector<uint32_t>{1, l.fH, l.fW, l.outC}
                                            : std::vector<uint32_t>{l.outC, l.fH, l.fW, depth};
    const std::vector<int8_t> w =
        randomCodes<int8_t>(rng, size_t{l.fH} * l.fW * depth * l.outC, v.wLo, v.wHi);
    const std::vector<int32_t> bias = randomCodes<int32_t>(rng, l.outC, -s.biasMax, s.biasMax);

    std::vector<NaiveRequant> rq;
    for (float ws : s.w) rq.emplace_back(realMultiplier(s.in, ws, s.out), s.out, l.activation);
    std::vector<int16_t> want = naiveConv(l, x, w, bias, rq);

    OneOp m;
    m.quant16x8();
    const uint32_t in = l.nchw ? m.input<int16_t>(kQ16, {l.batches, l.inC, l.inH, l.inW},
                                                  toNchw(x, l.batches, l.inH, l.inW, l.inC), s.in)
                               : m.input<int16_t>(kQ16, {l.batches, l.inH, l.inW, l.inC}, x, s.in);
    uint32_t f, b;
    if (l.perChannel) {
      f = m.constant<int8_t>(kPerChannel, wDims, w);
      m.channelQuant(f, s.w, kind == Kind::kDepthwise ? 3 : 0);
      b = m.constant<int32_t>(kI32, {l.outC}, bias);
    } else {
      f = m.constant<int8_t>(kQ8Symm, wDims, w, s.w[0]);
      b = m.constant<int32_t>(kI32, {l.outC}, bias, s.in * s.w[0]);
    }
    std::vector<uint32_t> ins = {in, f, b};
    if (l.scheme == 0) {
      for (int32_t p : {l.padL, l.padR, l.padT, l.padB}) ins.push_back(m.i32(p));
    } else {
      ins.push_back(m.i32(l.scheme));
    }
    ins.push_back(m.i32(l.strideW));
    ins.push_back(m.i32(l.strideH));
    if (kind != Kind::kConv) ins.push_back(m.i32(static_cast<int32_t>(l.extra)));
    ins.push_back(m.i32(l.activation));
    if (l.layoutFlag) ins.push_back(m.flag(l.nchw));
    if (l.dilationInputs) {
      ins.push_back(m.i32(l.dilW));
      ins.push_back(m.i32(l.dilH));
    }
    const uint32_t out = m.output(kQ16, {0, 0, 0, 0}, s.out);
    const OperationType type = kind == Kind::kConv        ? OperationType::CONV_2D
                               : kind == Kind::kDepthwise ? OperationType::DEPTHWISE_CONV_2D
                                                          : OperationType::GROUPED_CONV_2D;
    m.op(type, ins, {out});
    ASSERT_EQ(m.run(), "");
    if (l.nchw) {
      want = toNchw(want, l.batches, l.outH, l.outW, l.outC);
      EXPECT_EQ(m.resultDims(), (std::vector<uint32_t>{l.batches, l.outC, l.outH, l.outW}));
    } else {
      EXPECT_EQ(m.resultDims(), (std::vector<uint32_t>{l.batches, l.outH, l.outW, l.outC}));
    }
    ASSERT_EQ(m.result<int16_t>(), want);
  }
}

TEST(Conv16x8, RandomLayersMatchTheNaiveInt64Model) { runRandomConv(Kind::kConv, 1, 1000); }

TEST(DepthwiseConv16x8, RandomLayersMatchTheNaiveInt64Model) {
  runRandomConv(Kind::kDepthwise, 2, 1000);
}

TEST(GroupedConv16x8, RandomLayersMatchTheNaiveInt64Model) {
  runRandomConv(Kind::kGrouped, 3, 1000);
}

TEST(FullyConnected16x8, RandomLayersMatchTheNaiveInt64Model) {
  std::mt19937 rng(4);
  for (int t = 0; t < 1000; ++t) {
    const uint32_t batches = uniform(rng, 1, 3), units = uniform(rng, 1, 8);
    const uint32_t inputSize = rng() % 5 == 0 ? uniform(rng, 512, 2048) : uniform(rng, 1, 64);
    const bool perChannel = rng() % 2;
    const int32_t activation = uniform(rng, 0, 3);
    SCOPED_TRACE("case " + std::to_string(t) + ": batches " + std::to_string(batches) +
                 " inputSize " + std::to_string(inputSize) + " units " + std::to_string(units) +
                 " perChannel " + std::to_string(perChannel) + " act " +
                 std::to_string(activation));
    const ValueMode v = pickValues(rng);
    const Scales s = randomScales(rng, v, perChannel ? units : 1, inputSize);
    const auto x = randomCodes<int16_t>(rng, size_t{batches} * inputSize, v.xLo, v.xHi);
    const auto w = randomCodes<int8_t>(rng, size_t{units} * inputSize, v.wLo, v.wHi);
    const auto bias = randomCodes<int32_t>(rng, units, -s.biasMax, s.biasMax);
    std::vector<NaiveRequant> rq;
    for (float ws : s.w) rq.emplace_back(realMultiplier(s.in, ws, s.out), s.out, activation);
    std::vector<int16_t> want;
    for (uint32_t bi = 0; bi < batches; ++bi)
      for (uint32_t u = 0; u < units; ++u) {
        int64_t acc = bias[u];
        for (uint32_t k = 0; k < inputSize; ++k)
          acc += int64_t{x[size_t{bi} * inputSize + k]} * w[size_t{u} * inputSize + k];
        want.push_back(rq[perChannel ? u : 0](acc));
      }

    OneOp m;
    m.quant16x8();
    const uint32_t in = m.input<int16_t>(kQ16, {batches, inputSize}, x, s.in);
    uint32_t wt, b;
    if (perChannel) {
      wt = m.constant<int8_t>(kPerChannel, {units, inputSize}, w);
      m.channelQuant(wt, s.w, 0);
      b = m.constant<int32_t>(kI32, {units}, bias);
    } else {
      wt = m.constant<int8_t>(kQ8Symm, {units, inputSize}, w, s.w[0]);
      b = m.constant<int32_t>(kI32, {units}, bias, s.in * s.w[0]);
    }
    const uint32_t out = m.output(kQ16, {batches, units}, s.out);
    m.op(OperationType::FULLY_CONNECTED, {in, wt, b, m.i32(activation)}, {out});
    ASSERT_EQ(m.run(), "");
    ASSERT_EQ(m.result<int16_t>(), want);
  }
}

// --- signatures -------------------------------------------------------------------------

// A 1x1 CONV_2D (or DEPTHWISE_CONV_2D) on a 1x1x1x2 int16 input whose parts can be bent.
struct Wide {
  bool mode = true;
  bool depthwise = false;
  OperandType filterType = kQ8Symm;
  OperandType outType = kQ16;
  int32_t inZp = 0, filterZp = 0, biasZp = 0, outZp = 0;
  float biasScale = 0.25f, outScale = 1.0f;
};
std::string runWide(const Wide& c) {
  OneOp m;
  m.quant16x8(c.mode);
  const uint32_t in = m.input<int16_t>(kQ16, {1, 1, 1, 2}, {100, -200}, 0.5f, c.inZp);
  const uint32_t f =
      c.depthwise ? m.constant<int8_t>(c.filterType, {1, 1, 1, 2}, {3, 4}, 0.5f, c.filterZp)
                  : m.constant<int8_t>(c.filterType, {2, 1, 1, 2}, {1, 2, 3, 4}, 0.5f, c.filterZp);
  if (c.filterType == kPerChannel) m.channelQuant(f, {0.5f, 0.25f}, c.depthwise ? 3 : 0);
  const uint32_t b = m.constant<int32_t>(kI32, {2}, {1, 2}, c.biasScale, c.biasZp);
  const uint32_t out = m.output(c.outType, {1, 1, 1, 2}, c.outScale, c.outZp);
  std::vector<uint32_t> ins = {in, f, b, m.i32(kValid), m.i32(1), m.i32(1)};
  if (c.depthwise) ins.push_back(m.i32(1));
  ins.push_back(m.i32(0));
  m.op(c.depthwise ? OperationType::DEPTHWISE_CONV_2D : OperationType::CONV_2D, ins, {out});
  return m.run();
}

TEST(Conv16x8, TheGoodSignaturesRun) {
  EXPECT_EQ(runWide({}), "");
  Wide pc;
  pc.filterType = kPerChannel;
  EXPECT_EQ(runWide(pc), "");
  pc.depthwise = true;
  EXPECT_EQ(runWide(pc), "");
  Wide dw;
  dw.depthwise = true;
  EXPECT_EQ(runWide(dw), "");
}

TEST(Conv16x8, RejectedUnlessTheModelSelectsTheMode) {
  for (bool depthwise : {false, true}) {
    Wide c;
    c.mode = false;
    c.depthwise = depthwise;
    const std::string e = runWide(c);
    EXPECT_TRUE(contains(e, "validate: ")) << e;
    EXPECT_TRUE(contains(e, "unsupported type TENSOR_QUANT16_SYMM")) << e;
    EXPECT_TRUE(contains(e, "the model must select: \"quant16x8\": true")) << e;
  }
  OneOp fc;
  const uint32_t in = fc.input<int16_t>(kQ16, {1, 2}, {1, 2}, 1.0f);
  const uint32_t w = fc.constant<int8_t>(kQ8Symm, {1, 2}, {1, 2}, 1.0f);
  const uint32_t b = fc.constant<int32_t>(kI32, {1}, {0}, 1.0f);
  fc.op(OperationType::FULLY_CONNECTED, {in, w, b, fc.i32(0)}, {fc.output(kQ16, {1, 1}, 1.0f)});
  const std::string e = fc.run();
  EXPECT_TRUE(contains(e, "unsupported type TENSOR_QUANT16_SYMM")) << e;
  EXPECT_TRUE(contains(e, "quant16x8")) << e;
}

TEST(Conv16x8, BadZeroPointsAreRejected) {
  struct Case {
    Wide w;
    const char* what;
  };
  Wide in, filter, bias, out;
  in.inZp = 1;
  filter.filterZp = 2;
  bias.biasZp = 3;
  out.outZp = -4;
  for (const Case& c :
       {Case{in, "input zero point 1 must be 0"}, Case{filter, "filter zero point 2 must be 0"},
        Case{bias, "bias zero point 3 must be 0"}, Case{out, "output zero point -4 must be 0"}}) {
    const std::string e = runWide(c.w);
    EXPECT_TRUE(contains(e, "validate: ")) << e;
    EXPECT_TRUE(contains(e, std::string("16x8 mode: ") + c.what)) << e;
  }
}

TEST(Conv16x8, BiasScaleMismatchIsRejected) {
  Wide c;
  c.biasScale = 0.3f;  // input * filter = 0.25
  const std::string e = runWide(c);
  EXPECT_TRUE(contains(e, "validate: ")) << e;
  EXPECT_TRUE(contains(e, "bias scale 0.3 != input scale * filter scale 0.25")) << e;
}

TEST(Conv16x8, ShiftOutOfRangeIsRejected) {
  Wide c;
  c.outScale = 0.25f / 32768;  // M_real = 2^15: shift 16
  const std::string e = runWide(c);
  EXPECT_TRUE(contains(e, "validate: ")) << e;
  EXPECT_TRUE(contains(e, "needs shift 16, outside [-31, 14]")) << e;
  c.outScale = 0.25f / 16384 * 1.25f;  // M_real = 0.8 * 2^14: shift 14, accepted
  EXPECT_EQ(runWide(c), "");
}

TEST(Conv16x8, WrongFilterOrOutputTypeIsRejected) {
  Wide s8;
  s8.filterType = kS8;
  std::string e = runWide(s8);
  EXPECT_TRUE(contains(e,
                       "filter type TENSOR_QUANT8_ASYMM_SIGNED must be TENSOR_QUANT8_SYMM or "
                       "TENSOR_QUANT8_SYMM_PER_CHANNEL"))
      << e;
  Wide out8;
  out8.outType = kS8;
  e = runWide(out8);
  EXPECT_TRUE(contains(e, "output 0: expected TENSOR_QUANT16_SYMM")) << e;
}

TEST(FullyConnected16x8, PerChannelWeightsAlongUnitsOnly) {
  for (uint32_t dim : {0u, 1u}) {
    OneOp m;
    m.quant16x8();
    const uint32_t in = m.input<int16_t>(kQ16, {1, 2}, {100, 200}, 1.0f);
    const uint32_t w = m.constant<int8_t>(kPerChannel, {2, 2}, {1, 2, 3, 4});
    m.channelQuant(w, {1.0f, 0.5f}, dim);
    const uint32_t b = m.constant<int32_t>(kI32, {2}, {0, 0});
    m.op(OperationType::FULLY_CONNECTED, {in, w, b, m.i32(0)}, {m.output(kQ16, {1, 2}, 1.0f)});
    const std::string e = m.run();
    if (dim == 0) {
      ASSERT_EQ(e, "");
      EXPECT_EQ(m.result<int16_t>(), (std::vector<int16_t>{500, 550}));  // 1100 * 0.5
    } else {
      EXPECT_TRUE(contains(e, "FULLY_CONNECTED needs 0 (the units)")) << e;
    }
  }
  // A quant8 FULLY_CONNECTED still takes no per-channel weights, mode or not.
  OneOp q8;
  q8.quant16x8();
  const uint32_t in = q8.input<int8_t>(kS8, {1, 2}, {1, 2}, 1.0f);
  const uint32_t w = q8.constant<int8_t>(kPerChannel, {2, 2}, {1, 2, 3, 4});
  q8.channelQuant(w, {1.0f, 0.5f}, 0);
  const uint32_t b = q8.constant<int32_t>(kI32, {2}, {0, 0});
  q8.op(OperationType::FULLY_CONNECTED, {in, w, b, q8.i32(0)}, {q8.output(kS8, {1, 2}, 1.0f)});
  EXPECT_TRUE(contains(q8.run(),
                       "expected TENSOR_QUANT8_ASYMM_SIGNED, found "
                       "TENSOR_QUANT8_SYMM_PER_CHANNEL"));
}

// --- pooling of int16 activations -------------------------------------------------------

// A 2x2/2 pool over a [1, 2, 4, 1] int16 input, VALID, in a 16x8 model (or not).
std::string pool16(OneOp& m, OperationType type, bool mode, float outScale, int32_t act = 0) {
  m.quant16x8(mode);
  const uint32_t in =
      m.input<int16_t>(kQ16, {1, 2, 4, 1}, {1, 2, -1, -2, 32767, 32767, -3, -3}, 0.5f);
  const uint32_t out = m.output(kQ16, {1, 1, 2, 1}, outScale);
  m.op(type, {in, m.i32(kValid), m.i32(2), m.i32(2), m.i32(2), m.i32(2), m.i32(act)}, {out});
  return m.run();
}

TEST(Pool16x8, AverageAndMax) {
  OneOp avg;
  ASSERT_EQ(pool16(avg, OperationType::AVERAGE_POOL_2D, true, 0.5f), "");
  // (1 + 2 + 32767 + 32767) / 4 = 16384.25 -> 16384; (-1 - 2 - 3 - 3) / 4 = -2.25 -> -2.
  EXPECT_EQ(avg.result<int16_t>(), (std::vector<int16_t>{16384, -2}));
  OneOp max;
  ASSERT_EQ(pool16(max, OperationType::MAX_POOL_2D, true, 0.5f), "");
  EXPECT_EQ(max.result<int16_t>(), (std::vector<int16_t>{32767, -1}));
  OneOp relu1;  // RELU1 at scale 0.5: [-2, 2]
  ASSERT_EQ(pool16(relu1, OperationType::MAX_POOL_2D, true, 0.5f, 2), "");
  EXPECT_EQ(relu1.result<int16_t>(), (std::vector<int16_t>{2, -1}));
}

TEST(Pool16x8, RejectedWithoutTheModeOrWithAnotherScale) {
  OneOp off;
  std::string e = pool16(off, OperationType::AVERAGE_POOL_2D, false, 0.5f);
  EXPECT_TRUE(contains(e, "unsupported type TENSOR_QUANT16_SYMM")) << e;
  EXPECT_TRUE(contains(e, "quant16x8")) << e;
  OneOp scale;
  e = pool16(scale, OperationType::MAX_POOL_2D, true, 0.25f);
  EXPECT_TRUE(contains(e, "output scale 0.25 must equal the input scale 0.5")) << e;
  OneOp l2;
  e = pool16(l2, OperationType::L2_POOL_2D, true, 0.5f);
  EXPECT_TRUE(contains(e, "expected TENSOR_FLOAT32 or TENSOR_FLOAT16")) << e;
}

}  // namespace
}  // namespace nncosim::ops::conv_test
