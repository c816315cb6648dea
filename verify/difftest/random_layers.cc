#include "verify/difftest/random_layers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "hal/model_builder.h"
#include "ops/conv/conv_common.h"
#include "ops/shape.h"

namespace nncosim::verify::difftest {
namespace {

using hal::OperandType;
using hal::OperationType;

constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kS8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kI32 = OperandType::TENSOR_INT32;
constexpr OperandType kPerChannel = OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
// The 16x8 mode's activations and per-tensor weights.
constexpr OperandType kI16 = OperandType::TENSOR_QUANT16_SYMM;
constexpr OperandType kW8 = OperandType::TENSOR_QUANT8_SYMM;

uint64_t splitMix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A small portable PRNG (xoshiro256**): the same layers on every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& w : s_) w = splitMix(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [lo, hi] (inclusive).
  int32_t range(int64_t lo, int64_t hi) {
    if (hi <= lo) return static_cast<int32_t>(lo);
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return static_cast<int32_t>(lo + static_cast<int64_t>(next() % span));
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double real(double lo, double hi) { return lo + (hi - lo) * unit(); }
  double logUniform(double lo, double hi) { return std::exp(real(std::log(lo), std::log(hi))); }
  bool coin(double p = 0.5) { return unit() < p; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(range(0, static_cast<int64_t>(v.size()) - 1))];
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

struct QRange {
  int32_t lo, hi;
};
QRange rangeOf(OperandType t) {
  if (t == kU8) return {0, 255};
  if (t == kPerChannel || t == kW8) return {-127, 127};
  if (t == kI16) return {-32768, 32767};
  return {-128, 127};
}

// Random quantized values with a random pattern: uniform over the range, a narrow band,
// the extremes only, mostly one value (sparse), or constant.
std::vector<int32_t> randomValues(Rng& r, size_t n, QRange q, int32_t zeroPoint,
                                  std::string* pattern) {
  std::vector<int32_t> v(n);
  const double p = r.unit();
  if (p < 0.62) {
    *pattern = "uniform";
    for (int32_t& x : v) x = r.range(q.lo, q.hi);
  } else if (p < 0.80) {
    const int32_t width = r.range(1, 48), center = r.range(q.lo, q.hi);
    *pattern = "band" + std::to_string(width);
    for (int32_t& x : v) x = std::clamp(center + r.range(-width / 2, width / 2), q.lo, q.hi);
  } else if (p < 0.90) {
    *pattern = "extremes";
    for (int32_t& x : v) x = r.coin() ? q.lo : q.hi;
  } else if (p < 0.97) {
    *pattern = "sparse";
    for (int32_t& x : v) x = r.coin(0.15) ? r.range(q.lo, q.hi) : zeroPoint;
  } else {
    *pattern = "constant";
    const int32_t c = r.range(q.lo, q.hi);
    for (int32_t& x : v) x = c;
  }
  return v;
}

int32_t randomZeroPoint(Rng& r, QRange q) {
  const double p = r.unit();
  if (p < 0.08) return q.lo;
  if (p < 0.16) return q.hi;
  if (p < 0.24) return (q.lo + q.hi + 1) / 2;
  return r.range(q.lo, q.hi);
}

std::vector<uint8_t> toBytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = static_cast<uint8_t>(v[i]);
  return b;
}

// Little-endian int16 values (TENSOR_QUANT16_SYMM), or bytes for the 8-bit types.
std::vector<uint8_t> toBytes(const std::vector<int32_t>& v, OperandType t) {
  if (t != kI16) return toBytes(v);
  std::vector<uint8_t> b(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const auto u = static_cast<uint16_t>(static_cast<int16_t>(v[i]));
    b[2 * i] = static_cast<uint8_t>(u);
    b[2 * i + 1] = static_cast<uint8_t>(u >> 8);
  }
  return b;
}

// A runtime input of type t holding `values`.
hal::TensorValue tensorValue(OperandType t, const std::vector<uint32_t>& dims,
                             const std::vector<int32_t>& values) {
  hal::TensorValue v;
  v.type = t;
  v.dimensions = dims;
  v.bytes = toBytes(values, t);
  return v;
}

const char* activationName(int32_t a) {
  switch (a) {
    case 0:
      return "NONE";
    case 1:
      return "RELU";
    case 2:
      return "RELU1";
    case 3:
      return "RELU6";
    default:
      return "?";
  }
}

std::string fmt(double x) {
  std::ostringstream os;
  os.precision(4);
  os << x;
  return os.str();
}

// One output column (channel / unit / matmul column): the exact integer accumulators
// of the drawn data (sum of (x - xZp) * (w - wZp), computed here only to fit the output
// quantization; the check compares the NPU with the reference) summarized, bias included
// once addBias ran, and the column's filter scale.
struct Column {
  double mean = 0, sd = 0, min = 0, max = 0;
  uint64_t count = 0;
  float filterScale = 1;
  void add(int64_t acc) {
    const double a = static_cast<double>(acc);
    if (count == 0 || a < min) min = a;
    if (count == 0 || a > max) max = a;
    ++count;
    const double d = a - mean;  // Welford: sd holds the sum of squares until finish()
    mean += d / static_cast<double>(count);
    sd += d * (a - mean);
  }
  void finish() { sd = count > 1 ? std::sqrt(sd / static_cast<double>(count)) : 0.0; }
};

// Biases comparable to the accumulators' spread: "centered" cancels most of each
// column's mean (as a folded batch norm would), so accumulators straddle 0 and RELU-type
// clamps cut inside the range; "scaled" is independent of the mean; sometimes 0 or large.
std::vector<int32_t> randomBias(Rng& r, const std::vector<Column>& cols, std::string* kind) {
  std::vector<int32_t> b(cols.size());
  const double p = r.unit();
  if (p < 0.08) {
    *kind = "zero";
    return b;
  }
  if (p < 0.16) {
    *kind = "large";
    for (int32_t& x : b) x = r.range(-(1 << 22), 1 << 22);
    return b;
  }
  const bool centered = r.coin(0.6);
  *kind = centered ? "centered" : "scaled";
  constexpr double kLimit = 1 << 24;
  for (size_t j = 0; j < cols.size(); ++j) {
    const double spread = 2.0 * cols[j].sd + (centered ? 0.0 : std::abs(cols[j].mean)) + 8.0;
    const int64_t lim = static_cast<int64_t>(std::min(spread, kLimit));
    const double shift =
        centered ? std::clamp(-cols[j].mean * r.real(0.8, 1.2), -kLimit, kLimit) : 0.0;
    b[j] = static_cast<int32_t>(std::llround(shift)) + r.range(-lim, lim);
  }
  return b;
}

void addBias(std::vector<Column>& cols, const std::vector<int32_t>& bias) {
  for (size_t j = 0; j < cols.size(); ++j) {
    cols[j].mean += bias[j];
    cols[j].min += bias[j];
    cols[j].max += bias[j];
  }
}

struct OutputQuant {
  float inScale = 0.01f, outScale = 1.0f;
  int32_t outZp = 0;
  std::string mode;  // how it was chosen
};

// Chooses the input scale, output scale and output zero point so that the estimated
// accumulator range of every column lands on the output's quantized range (after the
// activation's clamp), with random slack; ~8 % of layers get a wild scale/zero point
// (heavy saturation or a few output levels). Every multiplier stays representable.
// `symmetric` (the 16x8 mode's int16 output): zero point 0, the scale fitted to the larger
// end of the range, multipliers below 2^13 (the 64-bit requantization's shift limit).
OutputQuant chooseQuant(Rng& r, const std::vector<Column>& cols, int32_t activation, QRange q,
                        bool symmetric = false) {
  OutputQuant o;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double fsMax = 0;
  for (const Column& c : cols) {
    lo = std::min(lo, c.min * c.filterScale);
    hi = std::max(hi, c.max * c.filterScale);
    fsMax = std::max<double>(fsMax, c.filterScale);
  }
  if (!(hi - lo > fsMax)) {  // (almost) constant accumulators: give the range some width
    const double mid = (lo + hi) / 2;
    lo = mid - 8 * fsMax;
    hi = mid + 8 * fsMax;
  }
  double inScale = r.logUniform(1e-3, 0.1);
  const double top = activation == 2 ? 1.0 : activation == 3 ? 6.0 : 0.0;
  if (top > 0 && r.coin(0.7)) {
    // Make the clamp of RELU1 / RELU6 matter: the clamp interval cuts inside the real
    // range (its width about the clamp's when the range straddles 0, else its near end
    // inside the interval).
    double s = 0;
    if (lo > 0)
      s = top * r.real(0.1, 0.9) / lo;
    else if (hi < 0)
      s = (activation == 2 ? 1.0 : 6.0) * r.real(0.1, 0.9) / -hi;  // RELU6: all clamped anyway
    else
      s = top * r.logUniform(0.5, 4.0) / std::max(std::abs(lo), std::abs(hi));
    if (s > 0 && std::isfinite(s)) inScale = std::clamp(s, 1e-7, 10.0);
    o.mode = "clamp-sized";
  }
  o.inScale = static_cast<float>(inScale);
  double rlo = lo * o.inScale, rhi = hi * o.inScale;
  const double ulo = rlo, uhi = rhi;
  switch (activation) {
    case 1:
      rlo = std::max(rlo, 0.0), rhi = std::max(rhi, 0.0);
      break;
    case 2:
      rlo = std::clamp(rlo, -1.0, 1.0), rhi = std::clamp(rhi, -1.0, 1.0);
      break;
    case 3:
      rlo = std::clamp(rlo, 0.0, 6.0), rhi = std::clamp(rhi, 0.0, 6.0);
      break;
    default:
      break;
  }
  if (!(rhi - rlo > 1e-3 * (uhi - ulo))) {  // the activation clamps (almost) everything
    rlo = ulo;
    rhi = uhi;
  }
  // The zero point lies in the quantized range, so the representable range holds 0. A
  // range that straddles 0 may get a scale that saturates its tails; one on one side of 0
  // must not (its far end would be cut, often all of it).
  const bool straddles = rlo < -0.1 * (rhi - rlo) && rhi > 0.1 * (rhi - rlo);
  rlo = std::min(rlo, 0.0);
  rhi = std::max(rhi, 0.0);
  const int32_t levels = q.hi - q.lo;
  const double span = symmetric ? 2 * std::max(-rlo, rhi) : rhi - rlo;
  double outScale = span / levels * r.logUniform(straddles ? 0.6 : 1.0, 1.6);
  double zp = std::round(q.lo - rlo / outScale) + r.range(-12, 12);
  if (r.coin(0.08)) {
    outScale *= r.logUniform(1.0 / 64, 64.0);
    zp = r.range(q.lo, q.hi);
    o.mode = "wild";
  }
  if (symmetric) zp = 0;
  if (o.mode.empty()) o.mode = "fitted";
  // Representable multipliers: input * filter / output in [2^-24, 2^16] (2^13 symmetric).
  const double maxMultiplier = symmetric ? 8192.0 : 65536.0;
  for (const Column& c : cols) {
    const double product = static_cast<double>(o.inScale * c.filterScale);
    outScale = std::max(outScale, product / maxMultiplier);
  }
  for (const Column& c : cols) {
    const double product = static_cast<double>(o.inScale * c.filterScale);
    outScale = std::min(outScale, product * 16777216.0);
  }
  o.outScale = static_cast<float>(outScale);
  if (!(o.outScale > 0) || !std::isfinite(o.outScale)) o.outScale = 1.0f;
  o.outZp = static_cast<int32_t>(std::clamp(zp, double(q.lo), double(q.hi)));
  return o;
}

// Channel counts: mostly uniform, sometimes around the 16-wide tile boundaries.
uint32_t randomChannels(Rng& r, uint32_t max) {
  if (max <= 1) return 1;
  if (r.coin(0.25)) {
    std::vector<uint32_t> edges;
    for (uint32_t e : {1u, 2u, 15u, 16u, 17u, 31u, 32u, 33u, 47u, 48u})
      if (e <= max) edges.push_back(e);
    return r.pick(edges);
  }
  return static_cast<uint32_t>(r.range(1, max));
}

uint32_t randomBatch(Rng& r, uint32_t max) {
  return r.coin(0.6) ? 1u : static_cast<uint32_t>(r.range(1, max));
}

enum class ConvKind { kConv, kDepthwise, kGrouped };

// A convolution's per-column filter scales (per-channel around a drawn base), bias and
// output quantization, drawn in this order from the columns' accumulator statistics.
struct ConvQuant {
  float baseScale = 0;
  std::vector<float> channelScales;
  std::vector<int32_t> bias;
  OutputQuant out;
};

ConvQuant drawConvQuant(Rng& r, std::vector<Column>& cols, bool perChannel, int32_t activation,
                        QRange q, bool wide, std::string* biasKind) {
  ConvQuant c;
  c.baseScale = static_cast<float>(r.logUniform(1e-3, 0.05));
  for (Column& col : cols) {
    col.filterScale =
        perChannel ? static_cast<float>(c.baseScale * r.logUniform(0.25, 4.0)) : c.baseScale;
    c.channelScales.push_back(col.filterScale);
  }
  c.bias = randomBias(r, cols, biasKind);
  addBias(cols, c.bias);
  c.out = chooseQuant(r, cols, activation, q, wide);
  return c;
}

// The input, filter (per-channel along channelDim, or per-tensor) and bias operands of a
// convolution, in this order: the first three inputs of its operation.
std::vector<uint32_t> addConvOperands(hal::ModelBuilder& b, OperandType t,
                                      const std::vector<uint32_t>& inDims, int32_t inZp,
                                      const std::vector<int32_t>& wValues,
                                      const std::vector<uint32_t>& filterDims,
                                      OperandType filterType, int32_t filterZp, bool perChannel,
                                      uint32_t channelDim, const ConvQuant& cq) {
  const uint32_t input = b.addInput(t, inDims, cq.out.inScale, inZp);
  const std::vector<uint8_t> wBytes = toBytes(wValues);
  uint32_t filter;
  if (perChannel) {
    filter = b.addConstant(kPerChannel, filterDims, wBytes.data(), wBytes.size(), 0.0f, 0);
    b.setChannelQuant(filter, cq.channelScales, channelDim);
  } else {
    filter =
        b.addConstant(filterType, filterDims, wBytes.data(), wBytes.size(), cq.baseScale, filterZp);
  }
  // NNAPI: a per-channel filter's bias has scale 0 (each channel's is input * filter[c]).
  const float biasScale = perChannel ? 0.0f : cq.out.inScale * cq.baseScale;
  const uint32_t outC = static_cast<uint32_t>(cq.bias.size());
  return {input, filter, b.addConstant(kI32, {outC}, cq.bias, biasScale, 0)};
}

RandomLayer randomConv(Rng& r, ConvKind kind, const GeneratorOptions& opt) {
  RandomLayer L;
  L.type = kind == ConvKind::kConv        ? OperationType::CONV_2D
           : kind == ConvKind::kDepthwise ? OperationType::DEPTHWISE_CONV_2D
                                          : OperationType::GROUPED_CONV_2D;
  const bool wide = opt.quant16x8 > 0 && r.coin(opt.quant16x8);  // the 16x8 mode
  const bool isSigned = r.coin();
  const OperandType t = wide ? kI16 : isSigned ? kS8 : kU8;
  const QRange q = rangeOf(t);
  const bool perChannel = r.coin(0.4);
  const uint32_t maxC = std::max<uint32_t>(1, opt.maxChannels);
  const uint32_t batches = randomBatch(r, std::max<uint32_t>(1, opt.maxBatch));
  uint32_t groups = 1, multiplier = 1, inC = 1, outC = 1;
  switch (kind) {
    case ConvKind::kConv:
      inC = randomChannels(r, maxC);
      outC = randomChannels(r, maxC);
      break;
    case ConvKind::kDepthwise:
      multiplier = r.coin(0.6) ? 1 : static_cast<uint32_t>(r.range(2, 4));
      multiplier = std::min(multiplier, maxC);
      inC = randomChannels(r, std::max<uint32_t>(1, maxC / multiplier));
      outC = inC * multiplier;
      break;
    case ConvKind::kGrouped: {
      groups = static_cast<uint32_t>(r.range(1, std::min<uint32_t>(8, maxC)));
      const uint32_t per = std::max<uint32_t>(1, maxC / groups);
      inC = groups * static_cast<uint32_t>(r.range(1, std::min<uint32_t>(per, 16)));
      outC = groups * static_cast<uint32_t>(r.range(1, std::min<uint32_t>(per, 16)));
      break;
    }
  }

  // Geometry: redrawn until the output is not empty (deterministic in the seed).
  const int32_t maxS = static_cast<int32_t>(std::max<uint32_t>(1, opt.maxSpatial));
  uint32_t fh = 1, fw = 1, inH = 1, inW = 1;
  int32_t sh = 1, sw = 1, dh = 1, dw = 1, pl = 0, pr = 0, pt = 0, pb = 0;
  int32_t scheme = ops::conv::kPaddingSame;
  bool explicitPad = false, dilated = false;
  int64_t outH = 0, outW = 0;
  for (int attempt = 0; attempt < 64 && (outH <= 0 || outW <= 0); ++attempt) {
    const int32_t fmax = attempt < 32 ? 5 : 1;
    fh = static_cast<uint32_t>(r.coin(0.2) ? 1 : r.range(1, fmax));
    fw = static_cast<uint32_t>(r.coin(0.2) ? fh : r.range(1, fmax));
    sh = r.coin(0.5) ? 1 : r.range(1, 3);
    sw = r.coin(0.7) ? sh : r.range(1, 3);
    dilated = kind != ConvKind::kGrouped && r.coin(0.25);
    dh = dilated ? r.range(1, 3) : 1;
    dw = dilated ? r.range(1, 3) : 1;
    inH = static_cast<uint32_t>(r.range(1, maxS));
    inW = static_cast<uint32_t>(r.range(1, maxS));
    const int32_t effH = (static_cast<int32_t>(fh) - 1) * dh + 1,
                  effW = (static_cast<int32_t>(fw) - 1) * dw + 1;
    explicitPad = r.coin();
    if (explicitPad) {
      pl = r.range(0, effW - 1);
      pr = r.range(0, effW - 1);
      pt = r.range(0, effH - 1);
      pb = r.range(0, effH - 1);
    } else {
      scheme = r.coin() ? ops::conv::kPaddingSame : ops::conv::kPaddingValid;
      ops::conv::explicitPadding(static_cast<int32_t>(inW), sw, dw, static_cast<int32_t>(fw),
                                 scheme, false, &pl, &pr);
      ops::conv::explicitPadding(static_cast<int32_t>(inH), sh, dh, static_cast<int32_t>(fh),
                                 scheme, false, &pt, &pb);
    }
    outW = ops::conv::convOutSize(inW, fw, sw, dw, pl, pr);
    outH = ops::conv::convOutSize(inH, fh, sh, dh, pt, pb);
  }
  if (outH <= 0 || outW <= 0) {  // unreachable in practice: a 1x1 VALID convolution
    fh = fw = 1;
    sh = sw = dh = dw = 1;
    dilated = false;
    explicitPad = true;
    pl = pr = pt = pb = 0;
    outH = inH;
    outW = inW;
  }
  const bool nchw = r.coin(0.3);
  const int32_t activation = r.range(0, 3);

  // Input.
  const int32_t inZp = wide ? 0 : randomZeroPoint(r, q);
  std::string inPattern, wPattern, biasKind;
  const size_t inCount = size_t{batches} * inH * inW * inC;
  const std::vector<int32_t> inValues = randomValues(r, inCount, q, inZp, &inPattern);

  // Filter: [outC, fh, fw, filterIn] or depthwise [1, fh, fw, outC].
  const uint32_t filterIn = kind == ConvKind::kConv      ? inC
                            : kind == ConvKind::kGrouped ? inC / groups
                                                         : 1;
  const std::vector<uint32_t> filterDims = kind == ConvKind::kDepthwise
                                               ? std::vector<uint32_t>{1, fh, fw, outC}
                                               : std::vector<uint32_t>{outC, fh, fw, filterIn};
  const size_t filterCount = size_t{outC} * fh * fw * filterIn;
  const OperandType filterType = perChannel ? kPerChannel : wide ? kW8 : t;
  const QRange fq = rangeOf(filterType);
  const int32_t filterZp = perChannel || wide ? 0 : randomZeroPoint(r, fq);
  const std::vector<int32_t> wValues = randomValues(r, filterCount, fq, filterZp, &wPattern);
  std::vector<Column> cols(outC);
  {
    const uint32_t go = outC / (kind == ConvKind::kDepthwise ? inC : groups);  // outputs per group
    auto x = [&](uint32_t n, uint32_t y, uint32_t xx, uint32_t c) {
      const size_t at = nchw ? ((size_t{n} * inC + c) * inH + y) * inW + xx
                             : ((size_t{n} * inH + y) * inW + xx) * inC + c;
      return int64_t{inValues[at]} - inZp;
    };
    auto w = [&](uint32_t oc, uint32_t fy, uint32_t fx, uint32_t ic) {
      const size_t at = kind == ConvKind::kDepthwise
                            ? (size_t{fy} * fw + fx) * outC + oc
                            : ((size_t{oc} * fh + fy) * fw + fx) * filterIn + ic;
      return int64_t{wValues[at]} - filterZp;
    };
    for (uint32_t n = 0; n < batches; ++n)
      for (int64_t oy = 0; oy < outH; ++oy)
        for (int64_t ox = 0; ox < outW; ++ox)
          for (uint32_t oc = 0; oc < outC; ++oc) {
            const uint32_t ic0 = (oc / go) * filterIn;
            int64_t acc = 0;
            for (uint32_t fy = 0; fy < fh; ++fy) {
              const int64_t iy = oy * sh - pt + int64_t{fy} * dh;
              if (iy < 0 || iy >= inH) continue;
              for (uint32_t fx = 0; fx < fw; ++fx) {
                const int64_t ix = ox * sw - pl + int64_t{fx} * dw;
                if (ix < 0 || ix >= inW) continue;
                for (uint32_t i = 0; i < filterIn; ++i)
                  acc += x(n, static_cast<uint32_t>(iy), static_cast<uint32_t>(ix), ic0 + i) *
                         w(oc, fy, fx, i);
              }
            }
            cols[oc].add(acc);
          }
    for (Column& c : cols) c.finish();
  }
  const ConvQuant cq = drawConvQuant(r, cols, perChannel, activation, q, wide, &biasKind);
  const OutputQuant& oq = cq.out;
  const float baseScale = cq.baseScale;

  hal::ModelBuilder b;
  b.setQuant16x8(wide);
  const std::vector<uint32_t> inDims = nchw ? std::vector<uint32_t>{batches, inC, inH, inW}
                                            : std::vector<uint32_t>{batches, inH, inW, inC};
  std::vector<uint32_t> args =
      addConvOperands(b, t, inDims, inZp, wValues, filterDims, filterType, filterZp, perChannel,
                      kind == ConvKind::kDepthwise ? 3 : 0, cq);
  if (explicitPad) {
    for (int32_t v : {pl, pr, pt, pb}) args.push_back(b.addInt32(v));
  } else {
    args.push_back(b.addInt32(scheme));
  }
  args.push_back(b.addInt32(sw));
  args.push_back(b.addInt32(sh));
  if (kind == ConvKind::kDepthwise) args.push_back(b.addInt32(static_cast<int32_t>(multiplier)));
  if (kind == ConvKind::kGrouped) args.push_back(b.addInt32(static_cast<int32_t>(groups)));
  args.push_back(b.addInt32(activation));
  const bool layoutFlag = kind == ConvKind::kGrouped || nchw || dilated || r.coin(0.3);
  if (layoutFlag) args.push_back(b.addBool(nchw));
  if (dilated) {
    args.push_back(b.addInt32(dw));
    args.push_back(b.addInt32(dh));
  }
  const uint32_t oh = static_cast<uint32_t>(outH), ow = static_cast<uint32_t>(outW);
  const std::vector<uint32_t> outDims = nchw ? std::vector<uint32_t>{batches, outC, oh, ow}
                                             : std::vector<uint32_t>{batches, oh, ow, outC};
  const uint32_t output = b.addOutput(t, outDims, oq.outScale, oq.outZp);
  b.addOperation(L.type, args, {output});
  L.model = b.build();
  L.inputs.push_back(tensorValue(t, inDims, inValues));

  std::ostringstream d;
  d << hal::toString(L.type)
    << (wide       ? " 16x8"
        : isSigned ? " s8"
                   : " u8")
    << (perChannel ? " per-channel" : " per-tensor") << " in " << ops::toString(inDims)
    << (nchw ? " NCHW" : " NHWC") << " filter " << fh << "x" << fw << " outC " << outC;
  if (kind == ConvKind::kDepthwise) d << " mult " << multiplier;
  if (kind == ConvKind::kGrouped) d << " groups " << groups;
  d << " stride " << sh << "x" << sw << " dilation " << dh << "x" << dw;
  if (explicitPad)
    d << " pad explicit t" << pt << " b" << pb << " l" << pl << " r" << pr;
  else
    d << " pad " << (scheme == ops::conv::kPaddingSame ? "SAME" : "VALID") << " (t" << pt << " b"
      << pb << " l" << pl << " r" << pr << ")";
  d << " out " << ops::toString(outDims) << " act " << activationName(activation)
    << (layoutFlag ? "" : " no-layout-flag") << " | zp in " << inZp << " filter " << filterZp
    << " out " << oq.outZp << " | scale in " << fmt(oq.inScale) << " filter " << fmt(baseScale)
    << " out " << fmt(oq.outScale) << " (" << oq.mode << ") | data " << inPattern << " weights "
    << wPattern << " bias " << biasKind;
  L.description = d.str();
  return L;
}

// TRANSPOSE_CONV_2D: uint8, int8 or 16x8, per-tensor or per-channel filters [outC, fh,
// fw, inC], strides 1..3 (the output up to 3x the input), explicit paddings (right and
// bottom down to 1 - stride, NNAPI's way of picking an output size; top and left below
// the filter size, as the NPU takes them) or SAME/VALID with the output-shape input.
RandomLayer randomTransposeConv(Rng& r, const GeneratorOptions& opt) {
  RandomLayer L;
  L.type = OperationType::TRANSPOSE_CONV_2D;
  const bool wide = opt.quant16x8 > 0 && r.coin(opt.quant16x8);
  const bool isSigned = r.coin();
  const OperandType t = wide ? kI16 : isSigned ? kS8 : kU8;
  const QRange q = rangeOf(t);
  const bool perChannel = r.coin(0.4);
  const uint32_t maxC = std::max<uint32_t>(1, opt.maxChannels);
  const uint32_t batches = randomBatch(r, std::max<uint32_t>(1, opt.maxBatch));
  const uint32_t inC = randomChannels(r, maxC), outC = randomChannels(r, maxC);

  // Geometry: redrawn until the output is not empty.
  const int32_t maxS = static_cast<int32_t>(std::max<uint32_t>(1, opt.maxSpatial / 2));
  uint32_t fh = 1, fw = 1, inH = 1, inW = 1;
  int32_t sh = 1, sw = 1, pl = 0, pr = 0, pt = 0, pb = 0, scheme = ops::conv::kPaddingSame;
  bool explicitPad = false;
  int64_t outH = 0, outW = 0;
  for (int attempt = 0; attempt < 64 && (outH <= 0 || outW <= 0); ++attempt) {
    fh = static_cast<uint32_t>(r.range(1, 5));
    fw = static_cast<uint32_t>(r.coin(0.3) ? fh : r.range(1, 5));
    sh = r.range(1, 3);
    sw = r.coin(0.7) ? sh : r.range(1, 3);
    inH = static_cast<uint32_t>(r.range(1, maxS));
    inW = static_cast<uint32_t>(r.range(1, maxS));
    explicitPad = r.coin();
    if (explicitPad) {
      pt = r.range(0, static_cast<int32_t>(fh) - 1);
      pl = r.range(0, static_cast<int32_t>(fw) - 1);
      pb = r.range(1 - sh, static_cast<int32_t>(fh) - 1);
      pr = r.range(1 - sw, static_cast<int32_t>(fw) - 1);
    } else {
      scheme = r.coin() ? ops::conv::kPaddingSame : ops::conv::kPaddingValid;
      const int32_t wantH = static_cast<int32_t>(inH) * sh, wantW = static_cast<int32_t>(inW) * sw;
      ops::conv::explicitPadding(wantW, sw, 1, static_cast<int32_t>(fw), scheme, true, &pl, &pr);
      ops::conv::explicitPadding(wantH, sh, 1, static_cast<int32_t>(fh), scheme, true, &pt, &pb);
    }
    outH = int64_t{inH} * sh + fh - sh - pt - pb;
    outW = int64_t{inW} * sw + fw - sw - pl - pr;
  }
  if (outH <= 0 || outW <= 0) {  // a 1x1 stride-1 layer
    fh = fw = 1;
    sh = sw = 1;
    explicitPad = true;
    pl = pr = pt = pb = 0;
    outH = inH;
    outW = inW;
  }
  const bool nchw = r.coin(0.3);
  const int32_t activation = r.range(0, 3);

  const int32_t inZp = wide ? 0 : randomZeroPoint(r, q);
  std::string inPattern, wPattern, biasKind;
  const std::vector<int32_t> inValues =
      randomValues(r, size_t{batches} * inH * inW * inC, q, inZp, &inPattern);
  const std::vector<uint32_t> filterDims = {outC, fh, fw, inC};
  const OperandType filterType = perChannel ? kPerChannel : wide ? kW8 : t;
  const QRange fq = rangeOf(filterType);
  const int32_t filterZp = perChannel || wide ? 0 : randomZeroPoint(r, fq);
  const std::vector<int32_t> wValues =
      randomValues(r, size_t{outC} * fh * fw * inC, fq, filterZp, &wPattern);
  std::vector<Column> cols(outC);
  {
    // The scatter's accumulators, per output element.
    const uint32_t oh = static_cast<uint32_t>(outH), ow = static_cast<uint32_t>(outW);
    std::vector<int64_t> acc(size_t{batches} * oh * ow * outC, 0);
    for (uint32_t n = 0; n < batches; ++n)
      for (uint32_t y = 0; y < inH; ++y)
        for (uint32_t x = 0; x < inW; ++x)
          for (uint32_t ic = 0; ic < inC; ++ic) {
            const size_t at = nchw ? ((size_t{n} * inC + ic) * inH + y) * inW + x
                                   : ((size_t{n} * inH + y) * inW + x) * inC + ic;
            const int64_t xv = int64_t{inValues[at]} - inZp;
            for (uint32_t oc = 0; oc < outC; ++oc)
              for (uint32_t fy = 0; fy < fh; ++fy) {
                const int64_t oy = int64_t{y} * sh - pt + fy;
                if (oy < 0 || oy >= oh) continue;
                for (uint32_t fx = 0; fx < fw; ++fx) {
                  const int64_t ox = int64_t{x} * sw - pl + fx;
                  if (ox < 0 || ox >= ow) continue;
                  const int64_t wv =
                      int64_t{wValues[((size_t{oc} * fh + fy) * fw + fx) * inC + ic]} - filterZp;
                  acc[((size_t{n} * oh + oy) * ow + ox) * outC + oc] += xv * wv;
                }
              }
          }
    for (size_t i = 0; i < acc.size(); ++i) cols[i % outC].add(acc[i]);
    for (Column& c : cols) c.finish();
  }
  const ConvQuant cq = drawConvQuant(r, cols, perChannel, activation, q, wide, &biasKind);
  const OutputQuant& oq = cq.out;
  const float baseScale = cq.baseScale;

  hal::ModelBuilder b;
  b.setQuant16x8(wide);
  const std::vector<uint32_t> inDims = nchw ? std::vector<uint32_t>{batches, inC, inH, inW}
                                            : std::vector<uint32_t>{batches, inH, inW, inC};
  std::vector<uint32_t> args = addConvOperands(b, t, inDims, inZp, wValues, filterDims, filterType,
                                               filterZp, perChannel, 0, cq);
  const uint32_t oh = static_cast<uint32_t>(outH), ow = static_cast<uint32_t>(outW);
  const std::vector<uint32_t> outDims = nchw ? std::vector<uint32_t>{batches, outC, oh, ow}
                                             : std::vector<uint32_t>{batches, oh, ow, outC};
  if (explicitPad) {
    for (int32_t v : {pl, pr, pt, pb}) args.push_back(b.addInt32(v));
  } else {
    std::vector<int32_t> shape(outDims.begin(), outDims.end());
    args.push_back(b.addConstant(kI32, {4}, shape, 0.0f, 0));
    args.push_back(b.addInt32(scheme));
  }
  args.push_back(b.addInt32(sw));
  args.push_back(b.addInt32(sh));
  args.push_back(b.addInt32(activation));
  args.push_back(b.addBool(nchw));
  b.addOperation(L.type, args, {b.addOutput(t, outDims, oq.outScale, oq.outZp)});
  L.model = b.build();
  L.inputs.push_back(tensorValue(t, inDims, inValues));

  std::ostringstream d;
  d << "TRANSPOSE_CONV_2D"
    << (wide       ? " 16x8"
        : isSigned ? " s8"
                   : " u8")
    << (perChannel ? " per-channel" : " per-tensor") << " in " << ops::toString(inDims)
    << (nchw ? " NCHW" : " NHWC") << " filter " << fh << "x" << fw << " outC " << outC << " stride "
    << sh << "x" << sw;
  if (explicitPad)
    d << " pad explicit t" << pt << " b" << pb << " l" << pl << " r" << pr;
  else
    d << " pad " << (scheme == ops::conv::kPaddingSame ? "SAME" : "VALID") << " (t" << pt << " b"
      << pb << " l" << pl << " r" << pr << ")";
  d << " out " << ops::toString(outDims) << " act " << activationName(activation) << " | zp in "
    << inZp << " filter " << filterZp << " out " << oq.outZp << " | scale in " << fmt(oq.inScale)
    << " filter " << fmt(baseScale) << " out " << fmt(oq.outScale) << " (" << oq.mode << ") | data "
    << inPattern << " weights " << wPattern << " bias " << biasKind;
  L.description = d.str();
  return L;
}

RandomLayer randomFullyConnected(Rng& r, const GeneratorOptions& opt) {
  RandomLayer L;
  L.type = OperationType::FULLY_CONNECTED;
  const bool wide = opt.quant16x8 > 0 && r.coin(opt.quant16x8);  // the 16x8 mode
  const bool isSigned = r.coin();
  const OperandType t = wide ? kI16 : isSigned ? kS8 : kU8;
  const OperandType wType = wide ? kW8 : t;
  const QRange q = rangeOf(t), wq = rangeOf(wType);
  const uint32_t maxC = std::max<uint32_t>(1, opt.maxChannels);
  const uint32_t maxB = std::max<uint32_t>(1, opt.maxBatch);
  const uint32_t units = randomChannels(r, maxC);
  std::vector<uint32_t> inDims;
  uint32_t inputSize = 0, batches = 0;
  const double shape = r.unit();
  if (shape < 0.6) {  // [batch, inputSize]; sometimes more rows than one row tile
    batches = r.coin(0.2) ? static_cast<uint32_t>(r.range(1, 20)) : randomBatch(r, maxB);
    inputSize = r.coin(0.3) ? static_cast<uint32_t>(r.range(1, 300)) : randomChannels(r, maxC);
    inDims = {batches, inputSize};
  } else if (shape < 0.8) {  // [a, b, inputSize] flattened to a*b rows
    const uint32_t a = randomBatch(r, maxB), c = static_cast<uint32_t>(r.range(1, 4));
    inputSize = randomChannels(r, maxC);
    batches = a * c;
    inDims = {a, c, inputSize};
  } else {  // [batch, h, w, c] flattened to inputSize = h*w*c
    batches = randomBatch(r, maxB);
    const uint32_t h = static_cast<uint32_t>(r.range(1, 4)),
                   w = static_cast<uint32_t>(r.range(1, 4));
    const uint32_t c = randomChannels(r, maxC);
    inputSize = h * w * c;
    inDims = {batches, h, w, c};
  }
  const int32_t activation = r.range(0, 3);
  const int32_t inZp = wide ? 0 : randomZeroPoint(r, q), wZp = wide ? 0 : randomZeroPoint(r, wq);
  std::string inPattern, wPattern, biasKind;
  const std::vector<int32_t> inValues =
      randomValues(r, size_t{batches} * inputSize, q, inZp, &inPattern);
  const std::vector<int32_t> wValues =
      randomValues(r, size_t{units} * inputSize, wq, wZp, &wPattern);
  std::vector<Column> cols(units);
  for (uint32_t n = 0; n < batches; ++n)
    for (uint32_t u = 0; u < units; ++u) {
      int64_t acc = 0;
      for (uint32_t k = 0; k < inputSize; ++k)
        acc += (int64_t{inValues[size_t{n} * inputSize + k]} - inZp) *
               (int64_t{wValues[size_t{u} * inputSize + k]} - wZp);
      cols[u].add(acc);
    }
  for (Column& c : cols) c.finish();
  const float wScale = static_cast<float>(r.logUniform(1e-3, 0.05));
  for (Column& c : cols) c.filterScale = wScale;
  const std::vector<int32_t> bias = randomBias(r, cols, &biasKind);
  addBias(cols, bias);
  const OutputQuant oq = chooseQuant(r, cols, activation, q, wide);

  hal::ModelBuilder b;
  b.setQuant16x8(wide);
  const uint32_t input = b.addInput(t, inDims, oq.inScale, inZp);
  const std::vector<uint8_t> wBytes = toBytes(wValues);
  const uint32_t weights =
      b.addConstant(wType, {units, inputSize}, wBytes.data(), wBytes.size(), wScale, wZp);
  const uint32_t biasOperand = b.addConstant(kI32, {units}, bias, oq.inScale * wScale, 0);
  const uint32_t output = b.addOutput(t, {batches, units}, oq.outScale, oq.outZp);
  b.addOperation(L.type, {input, weights, biasOperand, b.addInt32(activation)}, {output});
  L.model = b.build();
  L.inputs.push_back(tensorValue(t, inDims, inValues));

  std::ostringstream d;
  d << "FULLY_CONNECTED"
    << (wide       ? " 16x8"
        : isSigned ? " s8"
                   : " u8")
    << " in " << ops::toString(inDims) << " (" << batches << " rows x " << inputSize << ") units "
    << units << " act " << activationName(activation) << " | zp in " << inZp << " weights " << wZp
    << " out " << oq.outZp << " | scale in " << fmt(oq.inScale) << " weights " << fmt(wScale)
    << " out " << fmt(oq.outScale) << " (" << oq.mode << ") | data " << inPattern << " weights "
    << wPattern << " bias " << biasKind;
  L.description = d.str();
  return L;
}

RandomLayer randomBatchMatmul(Rng& r, const GeneratorOptions& opt) {
  RandomLayer L;
  L.type = OperationType::BATCH_MATMUL;
  const QRange q = rangeOf(kS8);
  const uint32_t maxC = std::max<uint32_t>(1, opt.maxChannels);
  const uint32_t maxB = std::max<uint32_t>(1, opt.maxBatch);
  const uint32_t rank = static_cast<uint32_t>(r.range(2, 4));
  std::vector<uint32_t> batch;
  for (uint32_t d = 0; d + 2 < rank; ++d) batch.push_back(static_cast<uint32_t>(r.range(1, maxB)));
  const uint32_t rows = randomChannels(r, maxC), cols = randomChannels(r, maxC);
  const uint32_t depth =
      r.coin(0.15) ? static_cast<uint32_t>(r.range(1, 300)) : randomChannels(r, maxC);
  const bool adjX = r.coin(), adjY = r.coin();
  std::vector<uint32_t> lhsDims = batch, rhsDims = batch;
  for (uint32_t& d : rhsDims)
    if (r.coin(0.3)) d = 1;  // rhs broadcasts
  lhsDims.push_back(adjX ? depth : rows);
  lhsDims.push_back(adjX ? rows : depth);
  rhsDims.push_back(adjY ? cols : depth);
  rhsDims.push_back(adjY ? depth : cols);
  size_t ln = 1, rn = 1, lhsBatches = 1;
  for (uint32_t d : lhsDims) ln *= d;
  for (uint32_t d : rhsDims) rn *= d;
  for (uint32_t d = 0; d + 2 < rank; ++d) lhsBatches *= lhsDims[d];
  const bool rhsConstant = r.coin(0.3);
  const int32_t lZp = randomZeroPoint(r, q), rZp = randomZeroPoint(r, q);
  std::string lPattern, rPattern;
  const std::vector<int32_t> lValues = randomValues(r, ln, q, lZp, &lPattern);
  const std::vector<int32_t> rValues = randomValues(r, rn, q, rZp, &rPattern);
  // Output columns: every column of the product (rhs broadcasting is by batch only).
  std::vector<Column> columns(cols);
  for (size_t m = 0; m < lhsBatches; ++m) {
    // rhs matrix of lhs batch m: each batch index taken modulo rhs's (1 = broadcast).
    size_t rm = 0, rest = m;
    std::vector<size_t> idx(rank - 2);
    for (size_t d = rank - 2; d-- > 0;) {
      idx[d] = rest % lhsDims[d];
      rest /= lhsDims[d];
    }
    for (size_t d = 0; d + 2 < rank; ++d) rm = rm * rhsDims[d] + (rhsDims[d] == 1 ? 0 : idx[d]);
    const int32_t* l = lValues.data() + m * size_t{rows} * depth;
    const int32_t* rr = rValues.data() + rm * size_t{depth} * cols;
    for (uint32_t i = 0; i < rows; ++i)
      for (uint32_t j = 0; j < cols; ++j) {
        int64_t acc = 0;
        for (uint32_t k = 0; k < depth; ++k) {
          const int64_t a =
              (adjX ? l[size_t{k} * rows + i] : l[size_t{i} * depth + k]) - int64_t{lZp};
          const int64_t c =
              (adjY ? rr[size_t{j} * depth + k] : rr[size_t{k} * cols + j]) - int64_t{rZp};
          acc += a * c;
        }
        columns[j].add(acc);
      }
  }
  for (Column& c : columns) c.finish();
  const float rScale = static_cast<float>(r.logUniform(1e-3, 0.1));
  for (Column& c : columns) c.filterScale = rScale;
  const OutputQuant oq = chooseQuant(r, columns, 0, q);

  hal::ModelBuilder b;
  const uint32_t lhs = b.addInput(kS8, lhsDims, oq.inScale, lZp);
  const std::vector<uint8_t> rBytes = toBytes(rValues);
  const uint32_t rhs = rhsConstant
                           ? b.addConstant(kS8, rhsDims, rBytes.data(), rBytes.size(), rScale, rZp)
                           : b.addInput(kS8, rhsDims, rScale, rZp);
  std::vector<uint32_t> outDims = lhsDims;
  outDims[rank - 2] = rows;
  outDims[rank - 1] = cols;
  const uint32_t output = b.addOutput(kS8, outDims, oq.outScale, oq.outZp);
  b.addOperation(L.type, {lhs, rhs, b.addBool(adjX), b.addBool(adjY)}, {output});
  L.model = b.build();
  hal::TensorValue lv;
  lv.type = kS8;
  lv.dimensions = lhsDims;
  lv.bytes = toBytes(lValues);
  L.inputs.push_back(std::move(lv));
  if (!rhsConstant) {
    hal::TensorValue rv;
    rv.type = kS8;
    rv.dimensions = rhsDims;
    rv.bytes = rBytes;
    L.inputs.push_back(std::move(rv));
  }

  std::ostringstream d;
  d << "BATCH_MATMUL s8 lhs " << ops::toString(lhsDims) << " rhs " << ops::toString(rhsDims)
    << (rhsConstant ? " (constant)" : "") << " adj_x " << adjX << " adj_y " << adjY << " (" << rows
    << "x" << depth << " * " << depth << "x" << cols << ") out " << ops::toString(outDims)
    << " | zp lhs " << lZp << " rhs " << rZp << " out " << oq.outZp << " | scale lhs "
    << fmt(oq.inScale) << " rhs " << fmt(rScale) << " out " << fmt(oq.outScale) << " (" << oq.mode
    << ") | data " << lPattern << " / " << rPattern;
  L.description = d.str();
  return L;
}

hal::TensorValue tensorValue(OperandType t, std::vector<uint32_t> dims,
                             std::vector<uint8_t> bytes) {
  hal::TensorValue v;
  v.type = t;
  v.dimensions = std::move(dims);
  v.bytes = std::move(bytes);
  return v;
}

// Batches of an LSTM step: usually a few, sometimes more than one row tile.
uint32_t lstmBatch(Rng& r, const GeneratorOptions& opt) {
  return r.coin(0.15) ? static_cast<uint32_t>(r.range(17, 40))
                      : randomBatch(r, std::max<uint32_t>(1, opt.maxBatch));
}

// QUANTIZED_16BIT_LSTM: constant uint8 weights (one scale and zero point), int32 biases in
// weights scale / 128 spanning about +-4 in the gates' Q3.12, random input, previous
// output and cell state (scale 2^-11).
RandomLayer randomQuantized16BitLstm(Rng& r, const GeneratorOptions& opt) {
  RandomLayer L;
  L.type = OperationType::QUANTIZED_16BIT_LSTM;
  const uint32_t maxC = std::max<uint32_t>(1, opt.maxChannels);
  const uint32_t batch = lstmBatch(r, opt);
  const uint32_t input = randomChannels(r, maxC), units = randomChannels(r, maxC);
  const QRange q = rangeOf(kU8);
  const int32_t wZp = randomZeroPoint(r, q);
  const float wScale = static_cast<float>(r.logUniform(1e-3, 0.03));
  const float actScale = 1.0f / 128.0f;
  std::string wPattern, xPattern;
  hal::ModelBuilder b;
  const std::vector<int32_t> x = randomValues(r, size_t{batch} * input, q, 128, &xPattern);
  std::vector<uint32_t> in{b.addInput(kU8, {batch, input}, actScale, 128)};
  for (int k = 0; k < 8; ++k) {
    const uint32_t cols = k < 4 ? input : units;
    const std::vector<uint8_t> w =
        toBytes(randomValues(r, size_t{units} * cols, q, wZp, &wPattern));
    in.push_back(b.addConstant(kU8, {units, cols}, w.data(), w.size(), wScale, wZp));
  }
  const int32_t biasSpan = static_cast<int32_t>(std::min(2.0e9, 4.0 * 128.0 / wScale));
  for (int k = 0; k < 4; ++k) {
    std::vector<int32_t> bias(units);
    for (int32_t& v : bias) v = r.range(-biasSpan, biasSpan);
    in.push_back(b.addConstant(kI32, {units}, bias, wScale / 128.0f, 0));
  }
  std::vector<int32_t> cell(size_t{batch} * units);
  for (int32_t& v : cell) v = r.range(-32768, 32767);
  std::string hPattern;
  const std::vector<int32_t> h = randomValues(r, size_t{batch} * units, q, 128, &hPattern);
  in.push_back(b.addInput(kI16, {batch, units}, 1.0f / 2048.0f, 0));
  in.push_back(b.addInput(kU8, {batch, units}, actScale, 128));
  b.addOperation(L.type, in,
                 {b.addOutput(kI16, {batch, units}, 1.0f / 2048.0f, 0),
                  b.addOutput(kU8, {batch, units}, actScale, 128)});
  L.model = b.build();
  L.inputs.push_back(tensorValue(kU8, {batch, input}, toBytes(x)));
  L.inputs.push_back(tensorValue(kI16, {batch, units}, toBytes(cell, kI16)));
  L.inputs.push_back(tensorValue(kU8, {batch, units}, toBytes(h)));
  std::ostringstream d;
  d << "QUANTIZED_16BIT_LSTM u8 batch " << batch << " input " << input << " units " << units
    << " | weights zp " << wZp << " scale " << fmt(wScale) << " | data " << xPattern << " / "
    << hPattern << " weights " << wPattern;
  L.description = d.str();
  return L;
}

// QUANTIZED_LSTM: int8 input and previous output, int8 symmetric constant weights, int16
// cell state (scale 2^-9 .. 2^-15), and each variant: CIFG, peepholes, layer norm,
// projection (with or without bias and clip), cell clip. Scales keep the gate products
// in the int16 range most of the time; some saturate.
RandomLayer randomQuantizedLstm(Rng& r, const GeneratorOptions& opt) {
  RandomLayer L;
  L.type = OperationType::QUANTIZED_LSTM;
  const uint32_t maxC = std::max<uint32_t>(1, opt.maxChannels);
  const uint32_t batch = lstmBatch(r, opt);
  const uint32_t input = randomChannels(r, maxC), units = randomChannels(r, maxC);
  const bool cifg = r.coin(0.3), peephole = r.coin(0.35), layerNorm = r.coin(0.4),
             projection = r.coin(0.35);
  const bool projectionBias = projection && r.coin(), cellClip = r.coin(0.3),
             projectionClip = projection && r.coin(0.3);
  const uint32_t output = projection ? randomChannels(r, maxC) : units;
  const QRange q8 = rangeOf(kS8), qw{-127, 127};
  const float xScale = static_cast<float>(r.logUniform(2e-3, 0.03));
  const float hScale = static_cast<float>(r.logUniform(2e-3, 0.03));
  const int32_t xZp = randomZeroPoint(r, q8), hZp = randomZeroPoint(r, q8);
  const int cellShift = r.range(-15, -9);
  const float cellScale = std::ldexp(1.0f, cellShift);
  std::string xPattern, hPattern, wPattern;
  hal::ModelBuilder b;
  // Omitted operands still need a valid quantization (model validation checks it).
  auto omitted = [&](OperandType t) {
    return b.addOperand(t, {}, t == kI32 ? 0.0f : 1.0f, 0, hal::OperandLifeTime::NO_VALUE);
  };
  auto weights = [&](uint32_t rows, uint32_t cols, float* scale) {
    *scale = static_cast<float>(r.logUniform(2e-3, 0.03));
    const std::vector<uint8_t> w = toBytes(randomValues(r, size_t{rows} * cols, qw, 0, &wPattern));
    return b.addConstant(kW8, {rows, cols}, w.data(), w.size(), *scale, 0);
  };
  // Per gate: the intermediate (gate product) scale; Q3.12 in and around it without layer
  // norm, anything with it.
  float intermediate[4], wIn[4] = {}, wRec[4] = {};
  for (float& s : intermediate)
    s = static_cast<float>(layerNorm ? r.logUniform(1e-3, 0.02)
                                     : r.logUniform(std::ldexp(1.0, -14), std::ldexp(1.0, -10)));
  const std::vector<int32_t> x = randomValues(r, size_t{batch} * input, q8, xZp, &xPattern);
  std::vector<uint32_t> in{b.addInput(kS8, {batch, input}, xScale, xZp)};
  for (int g = 0; g < 4; ++g)
    in.push_back(cifg && g == 0 ? omitted(kW8) : weights(units, input, &wIn[g]));
  for (int g = 0; g < 4; ++g)
    in.push_back(cifg && g == 0 ? omitted(kW8) : weights(units, output, &wRec[g]));
  for (int g = 0; g < 3; ++g) {  // peepholes: input, forget, output
    if (!peephole || (cifg && g == 0)) {
      in.push_back(omitted(kI16));
      continue;
    }
    std::vector<int32_t> p(units);
    for (int32_t& v : p) v = r.range(-20000, 20000);
    in.push_back(b.addConstant(kI16, {units}, toBytes(p, kI16).data(), size_t{units} * 2,
                               static_cast<float>(r.logUniform(1e-5, 1e-3)), 0));
  }
  for (int g = 0; g < 4;
       ++g) {  // biases: about +-1 in the gate (accumulator scale), or layer norm's
    if (cifg && g == 0) {
      in.push_back(omitted(kI32));
      continue;
    }
    const double span = layerNorm ? 262144.0 : std::min(2.0e9, 1.0 / (double{wIn[g]} * xScale));
    std::vector<int32_t> bias(units);
    for (int32_t& v : bias) v = r.range(static_cast<int64_t>(-span), static_cast<int64_t>(span));
    in.push_back(b.addConstant(kI32, {units}, bias, wIn[g] * xScale, 0));
  }
  float pScale = 0;
  in.push_back(projection ? weights(output, units, &pScale) : omitted(kW8));
  if (projectionBias) {
    std::vector<int32_t> bias(output);
    for (int32_t& v : bias) v = r.range(-20000, 20000);
    in.push_back(b.addConstant(kI32, {output}, bias, pScale * hScale, 0));
  } else {
    in.push_back(omitted(kI32));
  }
  std::string cPattern;
  const std::vector<int32_t> h = randomValues(r, size_t{batch} * output, q8, hZp, &hPattern);
  std::vector<int32_t> cell(size_t{batch} * units);
  for (int32_t& v : cell) v = r.range(-32768, 32767);
  in.push_back(b.addInput(kS8, {batch, output}, hScale, hZp));
  in.push_back(b.addInput(kI16, {batch, units}, cellScale, 0));
  for (int g = 0; g < 4; ++g) {  // layer norm weights (about 1.0)
    if (!layerNorm || (cifg && g == 0)) {
      in.push_back(omitted(kI16));
      continue;
    }
    std::vector<int32_t> w(units);
    for (int32_t& v : w) v = r.range(300, 3000);
    in.push_back(b.addConstant(kI16, {units}, toBytes(w, kI16).data(), size_t{units} * 2,
                               static_cast<float>(r.logUniform(1.0 / 4096, 1.0 / 256)), 0));
  }
  const float hiddenScale = static_cast<float>(r.logUniform(2e-3, 0.03));
  const int32_t hiddenZp = r.range(-20, 20);
  in.push_back(
      b.addFloat32(cellClip ? static_cast<float>(r.real(0.5, 16.0) * cellScale * 1024) : 0.0f));
  in.push_back(b.addFloat32(projectionClip ? static_cast<float>(r.real(10, 120) * pScale) : 0.0f));
  for (float s : intermediate) in.push_back(b.addFloat32(s));
  in.push_back(b.addInt32(hiddenZp));
  in.push_back(b.addFloat32(hiddenScale));
  b.addOperation(L.type, in,
                 {b.addOutput(kS8, {batch, output}, hScale, hZp),
                  b.addOutput(kI16, {batch, units}, cellScale, 0),
                  b.addOutput(kS8, {batch, output}, hScale, hZp)});
  L.model = b.build();
  L.inputs.push_back(tensorValue(kS8, {batch, input}, toBytes(x)));
  L.inputs.push_back(tensorValue(kS8, {batch, output}, toBytes(h)));
  L.inputs.push_back(tensorValue(kI16, {batch, units}, toBytes(cell, kI16)));
  std::ostringstream d;
  d << "QUANTIZED_LSTM s8 batch " << batch << " input " << input << " units " << units << " output "
    << output << (cifg ? " cifg" : "") << (peephole ? " peephole" : "")
    << (layerNorm ? " layer-norm" : "") << (projection ? " projection" : "")
    << (projectionBias ? " projection-bias" : "") << (projectionClip ? " projection-clip" : "")
    << (cellClip ? " cell-clip" : "") << " | zp in " << xZp << " prev " << hZp << " hidden "
    << hiddenZp << " | scale in " << fmt(xScale) << " prev " << fmt(hScale) << " cell 2^"
    << cellShift << " hidden " << fmt(hiddenScale) << " | data " << xPattern << " / " << hPattern
    << " weights " << wPattern;
  L.description = d.str();
  return L;
}

// AVERAGE_POOL_2D and MAX_POOL_2D: filters up to 7x7 (sometimes the whole plane, as before a
// classifier; a tenth up to 15x15, a twentieth up to 40x40: ISA 1.8's wide windows), strides 1..3,
// a quarter with explicit padding (clipped windows), uint8 or int8 (a share int16 in the 16x8
// mode), the output quantized as the input.
RandomLayer randomPool(Rng& r, const GeneratorOptions& opt, OperationType type) {
  RandomLayer L;
  L.type = type;
  const bool wide = opt.quant16x8 > 0 && r.coin(opt.quant16x8);  // the 16x8 mode
  const bool isSigned = wide || r.coin();
  const OperandType t = wide ? kI16 : isSigned ? kS8 : kU8;
  const QRange q = rangeOf(t);
  const uint32_t batches = randomBatch(r, std::max<uint32_t>(1, opt.maxBatch));
  const uint32_t c = randomChannels(r, std::max<uint32_t>(1, opt.maxChannels) * 2);
  // Stride w 3 (the CPU's: the unit strides rows by 1 or 2) in a tenth of the layers.
  const int32_t maxF = r.coin(0.05) ? 40 : r.coin(0.1) ? 15 : 7;
  const int32_t fh = r.range(1, maxF), fw = r.range(1, maxF), sh = r.range(1, 3),
                sw = r.coin(0.1) ? 3 : r.range(1, 2);
  const bool global = r.coin(0.25);
  const uint32_t maxS = std::max<uint32_t>(1, opt.maxSpatial);
  const uint32_t inH = global ? fh : static_cast<uint32_t>(r.range(fh, fh + maxS));
  const uint32_t inW = global ? fw : static_cast<uint32_t>(r.range(fw, fw + maxS));
  int32_t pt = 0, pb = 0, pl = 0, pr = 0;
  if (r.coin(0.25)) {
    pt = r.range(0, fh - 1);
    pb = r.range(0, fh - 1);
    pl = r.range(0, fw - 1);
    pr = r.range(0, fw - 1);
  }
  const uint32_t outH = (inH + pt + pb - fh) / sh + 1, outW = (inW + pl + pr - fw) / sw + 1;
  const int32_t activation = r.range(0, 3);
  const float scale = static_cast<float>(r.logUniform(1e-3, 0.2));
  const int32_t zp = wide ? 0 : randomZeroPoint(r, q);
  std::string pattern;
  const std::vector<int32_t> values =
      randomValues(r, size_t{batches} * inH * inW * c, q, zp, &pattern);

  hal::ModelBuilder b;
  b.setQuant16x8(wide);
  const std::vector<uint32_t> inDims = {batches, inH, inW, c};
  const uint32_t input = b.addInput(t, inDims, scale, zp);
  const uint32_t output = b.addOutput(t, {batches, outH, outW, c}, scale, zp);
  std::vector<uint32_t> args = {input};
  for (int32_t v : {pl, pr, pt, pb, sw, sh, fw, fh, activation}) args.push_back(b.addInt32(v));
  b.addOperation(L.type, args, {output});
  L.model = b.build();
  L.inputs.push_back(tensorValue(t, inDims, values));

  std::ostringstream d;
  d << hal::toString(type)
    << (wide       ? " s16 (16x8)"
        : isSigned ? " s8"
                   : " u8")
    << " in " << ops::toString(inDims) << " filter " << fh << "x" << fw << " stride " << sh << "x"
    << sw << " pad t" << pt << " b" << pb << " l" << pl << " r" << pr << " act "
    << activationName(activation) << " | zp " << zp << " scale " << fmt(scale) << " | data "
    << pattern;
  L.description = d.str();
  return L;
}

// MEAN of an [N, H, W, C] tensor over height and width (the global pool of Keras-exported
// networks; two thirds of the layers), height alone or width alone, the axes sometimes
// negative or repeated, keep_dims either way; planes up to 15 x 15 and a tenth up to 60 x 60
// (ISA 1.8's wide windows), a twentieth over the channels (the CPU's, with its reason); uint8
// or int8, the output quantized as the input (NNAPI's rule).
RandomLayer randomMean(Rng& r, const GeneratorOptions& opt) {
  RandomLayer L;
  L.type = OperationType::MEAN;
  const bool isSigned = r.coin();
  const OperandType t = isSigned ? kS8 : kU8;
  const QRange q = rangeOf(t);
  const uint32_t batches = randomBatch(r, std::max<uint32_t>(1, opt.maxBatch));
  const uint32_t c = randomChannels(r, std::max<uint32_t>(1, opt.maxChannels) * 2);
  const uint32_t maxS = r.coin(0.1) ? 60 : 15;
  const uint32_t inH = static_cast<uint32_t>(r.range(1, static_cast<int32_t>(maxS)));
  const uint32_t inW = static_cast<uint32_t>(r.range(1, static_cast<int32_t>(maxS)));
  std::vector<int32_t> axes;
  const int kind = r.range(0, 19);
  if (kind < 13)
    axes = {1, 2};
  else if (kind < 16)
    axes = {1};
  else if (kind < 19)
    axes = {2};
  else
    axes = {3};
  for (int32_t& a : axes)
    if (r.coin(0.25)) a -= 4;  // the same axis, counted from the end
  if (r.coin(0.1)) axes.push_back(axes.front());
  if (r.coin()) std::reverse(axes.begin(), axes.end());
  const bool keepDims = r.coin();
  const float scale = static_cast<float>(r.logUniform(1e-3, 0.2));
  const int32_t zp = randomZeroPoint(r, q);
  std::string pattern;
  const std::vector<int32_t> values =
      randomValues(r, size_t{batches} * inH * inW * c, q, zp, &pattern);

  std::vector<uint32_t> outDims;
  const std::vector<uint32_t> inDims = {batches, inH, inW, c};
  for (uint32_t d = 0; d < 4; ++d) {
    bool reduced = false;
    for (int32_t a : axes) reduced = reduced || (a < 0 ? a + 4 : a) == static_cast<int32_t>(d);
    if (!reduced)
      outDims.push_back(inDims[d]);
    else if (keepDims)
      outDims.push_back(1);
  }
  hal::ModelBuilder b;
  const uint32_t input = b.addInput(t, inDims, scale, zp);
  const uint32_t output = b.addOutput(t, outDims, scale, zp);
  const uint32_t axesOperand =
      b.addConstant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(axes.size())}, axes);
  b.addOperation(L.type, {input, axesOperand, b.addInt32(keepDims ? 1 : 0)}, {output});
  L.model = b.build();
  L.inputs.push_back(tensorValue(t, inDims, values));

  std::ostringstream d;
  d << "MEAN " << (isSigned ? "s8" : "u8") << " in " << ops::toString(inDims) << " axes [";
  for (size_t i = 0; i < axes.size(); ++i) d << (i ? "," : "") << axes[i];
  d << "] keep_dims " << keepDims << " | zp " << zp << " scale " << fmt(scale) << " | data "
    << pattern;
  L.description = d.str();
  return L;
}

// ADD, SUB, MUL: shapes up to the options' sizes, the second input (or the first) of the
// output's shape or repeated (a scalar, per channel, [1, H, W, C] over the batch, [N, 1, 1,
// C] over the pixels), a third of those repeated inputs constant; uint8 or int8, ADD and SUB
// also int16 in the 16x8 mode; random scales (the output's near the result's spread) and
// zero points, every fused activation.
RandomLayer randomArithmetic(Rng& r, const GeneratorOptions& opt, OperationType type) {
  RandomLayer L;
  L.type = type;
  const bool wide =
      type != OperationType::MUL && opt.quant16x8 > 0 && r.coin(opt.quant16x8);  // 16x8 mode
  const bool isSigned = wide || r.coin();
  const OperandType t = wide ? kI16 : isSigned ? kS8 : kU8;
  const QRange q = rangeOf(t);
  const uint32_t n = randomBatch(r, std::max<uint32_t>(1, opt.maxBatch));
  const uint32_t maxS = std::max<uint32_t>(1, opt.maxSpatial);
  const uint32_t h = static_cast<uint32_t>(r.range(1, static_cast<int32_t>(maxS)));
  const uint32_t w = static_cast<uint32_t>(r.range(1, static_cast<int32_t>(maxS)));
  const uint32_t c = randomChannels(r, std::max<uint32_t>(1, opt.maxChannels) * 2);
  const std::vector<uint32_t> full = {n, h, w, c};
  std::vector<uint32_t> other = full;
  const int32_t pattern = r.coin(0.5) ? 0 : r.range(1, 4);
  const char* patternName[] = {"same shape", "scalar", "per channel", "over the batch",
                               "over the pixels"};
  if (pattern == 1) other = {1};
  if (pattern == 2) other = {c};
  if (pattern == 3) other = {1, h, w, c};
  if (pattern == 4) other = {n, 1, 1, c};
  const bool repeatedFirst = pattern > 0 && r.coin();
  const bool otherConst = pattern > 0 && r.coin(1.0 / 3);
  const float sa = static_cast<float>(r.logUniform(1e-3, 0.2));
  const float sb = r.coin(0.25) ? sa : static_cast<float>(r.logUniform(1e-3, 0.2));
  // Output scales near the result's spread, so that outputs span the range: a sum of two
  // inputs, a product of zero-point-corrected values of typically 10^4 (a share saturating
  // or nearly constant all the same).
  const float so = type == OperationType::MUL
                       ? static_cast<float>(sa * sb * r.logUniform(20, 600))
                       : static_cast<float>(std::max(sa, sb) * r.logUniform(0.4, 5));
  auto zp = [&]() { return wide ? 0 : randomZeroPoint(r, q); };
  const int32_t za = zp(), zb = zp(), zo = zp();
  const int32_t activation = r.range(0, 3);
  hal::ModelBuilder b;
  b.setQuant16x8(wide);
  std::string pa, pb;
  auto operand = [&](const std::vector<uint32_t>& dims, float scale, int32_t z, bool constant,
                     std::string* pat) {
    size_t e = 1;
    for (uint32_t d : dims) e *= d;
    const std::vector<int32_t> v = randomValues(r, e, q, z, pat);
    const std::vector<uint8_t> bytes = toBytes(v, t);
    if (constant) return b.addConstant(t, dims, bytes.data(), bytes.size(), scale, z);
    L.inputs.push_back(tensorValue(t, dims, bytes));
    return b.addInput(t, dims, scale, z);
  };
  const uint32_t a =
      repeatedFirst ? operand(other, sa, za, otherConst, &pa) : operand(full, sa, za, false, &pa);
  const uint32_t bIn =
      repeatedFirst ? operand(full, sb, zb, false, &pb) : operand(other, sb, zb, otherConst, &pb);
  const uint32_t output = b.addOutput(t, full, so, zo);
  b.addOperation(type, {a, bIn, b.addInt32(activation)}, {output});
  L.model = b.build();
  std::ostringstream d;
  d << hal::toString(type)
    << (wide       ? " s16 (16x8)"
        : isSigned ? " s8"
                   : " u8")
    << " out " << ops::toString(full) << " " << patternName[pattern]
    << (repeatedFirst ? ", repeated input first" : "") << (otherConst ? ", constant" : "")
    << " act " << activationName(activation) << " | zp " << za << "/" << zb << "/" << zo
    << " scale " << fmt(sa) << "/" << fmt(sb) << "/" << fmt(so) << " | data " << pa << " / " << pb;
  L.description = d.str();
  return L;
}

}  // namespace

// The accumulator statistics of a pointwise layer, per output channel: `in` holds pixels of
// inC values (zero point inZp), `w` outC rows of inC weights (zero point wZp).
std::vector<Column> pointwiseColumns(const std::vector<int32_t>& in, uint32_t inC, int32_t inZp,
                                     const std::vector<int32_t>& w, uint32_t outC, int32_t wZp) {
  std::vector<Column> cols(outC);
  for (size_t px = 0; px < in.size() / inC; ++px)
    for (uint32_t o = 0; o < outC; ++o) {
      int64_t acc = 0;
      for (uint32_t i = 0; i < inC; ++i)
        acc += (int64_t{in[px * inC + i]} - inZp) * (int64_t{w[size_t{o} * inC + i]} - wZp);
      cols[o].add(acc);
    }
  for (Column& col : cols) col.finish();
  return cols;
}

// A depthwise layer and the pointwise CONV_2D that alone reads its output (uint8 or int8,
// NHWC, multiplier 1, per-tensor or per-channel filters, filters 1x1 to 7x7, strides and
// dilations 1 or 2, SAME or VALID, every fused activation on both): what the driver fuses
// into one step when its estimate wins. The pointwise quantization is fitted to values drawn
// over the depthwise output's range (a stand-in for the outputs themselves; the check
// compares the NPU with the reference whatever they are). With `over`, its input has that
// operand's type and shape (one image).
RandomLayer randomFusedPair(Rng& r, const GeneratorOptions& opt, const hal::Operand* over) {
  RandomLayer L;
  L.type = OperationType::DEPTHWISE_CONV_2D;
  const bool isSigned = over ? over->type == kS8 : r.coin();
  const OperandType t = isSigned ? kS8 : kU8;
  const QRange q = rangeOf(t);
  const uint32_t maxC = std::max<uint32_t>(1, opt.maxChannels);
  const uint32_t batches = over ? 1 : randomBatch(r, std::max<uint32_t>(1, opt.maxBatch));
  const uint32_t c = over ? over->dimensions.at(3) : randomChannels(r, maxC);
  const uint32_t outC = randomChannels(r, maxC);
  const uint32_t fh = static_cast<uint32_t>(r.coin(0.6) ? 3 : r.range(1, 7));
  const uint32_t fw = r.coin(0.8) ? fh : static_cast<uint32_t>(r.range(1, 7));
  const int32_t sh = r.range(1, 2), sw = r.coin(0.8) ? sh : r.range(1, 2);
  const int32_t dh = r.coin(0.2) ? 2 : 1, dw = r.coin(0.2) ? 2 : 1;
  const int32_t effH = (static_cast<int32_t>(fh) - 1) * dh + 1,
                effW = (static_cast<int32_t>(fw) - 1) * dw + 1;
  const int32_t maxS = static_cast<int32_t>(std::max<uint32_t>(1, opt.maxSpatial));
  const auto inH = over
                       ? over->dimensions.at(1)
                       : static_cast<uint32_t>(r.range(std::min(effH, maxS), std::max(effH, maxS)));
  const auto inW = over
                       ? over->dimensions.at(2)
                       : static_cast<uint32_t>(r.range(std::min(effW, maxS), std::max(effW, maxS)));
  const int32_t scheme = r.coin() ? ops::conv::kPaddingSame : ops::conv::kPaddingValid;
  int32_t pl = 0, pr = 0, pt = 0, pb = 0;
  ops::conv::explicitPadding(static_cast<int32_t>(inW), sw, dw, static_cast<int32_t>(fw), scheme,
                             false, &pl, &pr);
  ops::conv::explicitPadding(static_cast<int32_t>(inH), sh, dh, static_cast<int32_t>(fh), scheme,
                             false, &pt, &pb);
  int64_t outH = ops::conv::convOutSize(inH, fh, sh, dh, pt, pb);
  int64_t outW = ops::conv::convOutSize(inW, fw, sw, dw, pl, pr);
  const bool valid = outH > 0 && outW > 0;
  const int32_t sa = valid ? scheme : ops::conv::kPaddingSame;  // SAME always has an output
  if (!valid) {
    ops::conv::explicitPadding(static_cast<int32_t>(inW), sw, dw, static_cast<int32_t>(fw), sa,
                               false, &pl, &pr);
    ops::conv::explicitPadding(static_cast<int32_t>(inH), sh, dh, static_cast<int32_t>(fh), sa,
                               false, &pt, &pb);
    outH = ops::conv::convOutSize(inH, fh, sh, dh, pt, pb);
    outW = ops::conv::convOutSize(inW, fw, sw, dw, pl, pr);
  }
  const auto oh = static_cast<uint32_t>(outH), ow = static_cast<uint32_t>(outW);
  const int32_t act1 = r.range(0, 3), act2 = r.range(0, 3);

  // The depthwise layer: its accumulators fit its output quantization.
  std::string inPattern, wPattern, midPattern, pwPattern, biasKind1, biasKind2;
  const int32_t inZp = randomZeroPoint(r, q);
  const std::vector<int32_t> in =
      randomValues(r, size_t{batches} * inH * inW * c, q, inZp, &inPattern);
  const bool pc1 = r.coin(0.4), pc2 = r.coin(0.4);
  const QRange fq1 = rangeOf(pc1 ? kPerChannel : t);
  const int32_t fZp1 = pc1 ? 0 : randomZeroPoint(r, fq1);
  const std::vector<int32_t> w1 = randomValues(r, size_t{fh} * fw * c, fq1, fZp1, &wPattern);
  std::vector<Column> cols1(c);
  for (uint32_t n = 0; n < batches; ++n)
    for (uint32_t oy = 0; oy < oh; ++oy)
      for (uint32_t ox = 0; ox < ow; ++ox)
        for (uint32_t ch = 0; ch < c; ++ch) {
          int64_t acc = 0;
          for (uint32_t fy = 0; fy < fh; ++fy) {
            const int64_t iy = int64_t{oy} * sh - pt + int64_t{fy} * dh;
            if (iy < 0 || iy >= inH) continue;
            for (uint32_t fx = 0; fx < fw; ++fx) {
              const int64_t ix = int64_t{ox} * sw - pl + int64_t{fx} * dw;
              if (ix < 0 || ix >= inW) continue;
              acc += (int64_t{in[((size_t{n} * inH + iy) * inW + ix) * c + ch]} - inZp) *
                     (int64_t{w1[(size_t{fy} * fw + fx) * c + ch]} - fZp1);
            }
          }
          cols1[ch].add(acc);
        }
  for (Column& col : cols1) col.finish();
  const ConvQuant cq1 = drawConvQuant(r, cols1, pc1, act1, q, false, &biasKind1);
  // The pointwise layer over values drawn across the depthwise output's range.
  const int32_t midZp = cq1.out.outZp;
  const std::vector<int32_t> mid =
      randomValues(r, size_t{batches} * oh * ow * c, q, midZp, &midPattern);
  const QRange fq2 = rangeOf(pc2 ? kPerChannel : t);
  const int32_t fZp2 = pc2 ? 0 : randomZeroPoint(r, fq2);
  const std::vector<int32_t> w2 = randomValues(r, size_t{outC} * c, fq2, fZp2, &pwPattern);
  std::vector<Column> cols2 = pointwiseColumns(mid, c, midZp, w2, outC, fZp2);
  ConvQuant cq2 = drawConvQuant(r, cols2, pc2, act2, q, false, &biasKind2);
  // Its input scale is the depthwise output's: the filter scales absorb the difference, so
  // every product's scale (and each multiplier) is the one drawn.
  const double k = cq2.out.inScale / cq1.out.outScale;
  cq2.baseScale = static_cast<float>(cq2.baseScale * k);
  for (float& x : cq2.channelScales) x = static_cast<float>(x * k);
  cq2.out.inScale = cq1.out.outScale;

  hal::ModelBuilder b;
  const std::vector<uint32_t> inDims = {batches, inH, inW, c};
  std::vector<uint32_t> a1 = addConvOperands(b, t, inDims, inZp, w1, {1, fh, fw, c},
                                             pc1 ? kPerChannel : t, fZp1, pc1, 3, cq1);
  for (int32_t v : {sa, sw, sh, 1, act1}) a1.push_back(b.addInt32(v));
  const bool dilated = dh > 1 || dw > 1;
  if (dilated) {
    a1.push_back(b.addBool(false));
    a1.push_back(b.addInt32(dw));
    a1.push_back(b.addInt32(dh));
  }
  const uint32_t midOp = b.addOperand(t, {batches, oh, ow, c}, cq1.out.outScale, midZp);
  b.addOperation(OperationType::DEPTHWISE_CONV_2D, a1, {midOp});
  const std::vector<uint8_t> w2Bytes = toBytes(w2);
  uint32_t filter2;
  if (pc2) {
    filter2 = b.addConstant(kPerChannel, {outC, 1, 1, c}, w2Bytes.data(), w2Bytes.size(), 0.0f, 0);
    b.setChannelQuant(filter2, cq2.channelScales, 0);
  } else {
    filter2 =
        b.addConstant(t, {outC, 1, 1, c}, w2Bytes.data(), w2Bytes.size(), cq2.baseScale, fZp2);
  }
  const uint32_t bias2 =
      b.addConstant(kI32, {outC}, cq2.bias, pc2 ? 0.0f : cq2.out.inScale * cq2.baseScale, 0);
  const uint32_t out = b.addOutput(t, {batches, oh, ow, outC}, cq2.out.outScale, cq2.out.outZp);
  b.addOperation(OperationType::CONV_2D,
                 {midOp, filter2, bias2, b.addInt32(ops::conv::kPaddingValid), b.addInt32(1),
                  b.addInt32(1), b.addInt32(act2)},
                 {out});
  L.model = b.build();
  L.inputs.push_back(tensorValue(t, inDims, in));
  std::ostringstream d;
  d << "DEPTHWISE_CONV_2D -> CONV_2D 1x1" << (isSigned ? " s8" : " u8") << " in "
    << ops::toString(inDims) << " filter " << fh << "x" << fw << (pc1 ? " per-channel" : "")
    << " stride " << sh << "x" << sw << " dilation " << dh << "x" << dw << " pad "
    << (sa == ops::conv::kPaddingSame ? "SAME" : "VALID") << " act " << activationName(act1)
    << " -> [" << batches << ", " << oh << ", " << ow << ", " << c << "] -> pointwise " << outC
    << (pc2 ? " per-channel" : "") << " act " << activationName(act2) << " | zp in " << inZp
    << " mid " << midZp << " out " << cq2.out.outZp << " | data " << inPattern << " weights "
    << wPattern << "/" << pwPattern << " bias " << biasKind1 << "/" << biasKind2;
  L.description = d.str();
  return L;
}

// A CONV_2D and the ADD, SUB or MUL that alone reads its output, the other input a model
// input of the same shape (either side): what the driver fuses into one step, the
// convolution's elementwise epilogue, when its estimate wins. The convolution is
// randomConv's 8-bit one (an NCHW one runs as two steps); the arithmetic's scales are drawn
// as randomArithmetic draws them, the convolution's output scale as its first input's.
RandomLayer randomConvEltwisePair(Rng& r, const GeneratorOptions& opt) {
  GeneratorOptions convOptions = opt;
  convOptions.quant16x8 = 0;
  RandomLayer L = randomConv(r, ConvKind::kConv, convOptions);
  const OperationType types[] = {OperationType::ADD, OperationType::SUB, OperationType::MUL};
  const OperationType type = types[r.range(0, 2)];
  hal::Model m = std::move(L.model);
  const uint32_t y = m.main.outputIndexes.at(0);
  m.main.outputIndexes.clear();
  m.main.operands[y].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  const hal::Operand conv = m.main.operands[y];
  const OperandType t = conv.type;
  const QRange q = rangeOf(t);
  const float sa = conv.scale;
  const float sb = r.coin(0.25) ? sa : static_cast<float>(sa * r.logUniform(0.2, 5));
  const float so = type == OperationType::MUL
                       ? static_cast<float>(sa * sb * r.logUniform(20, 600))
                       : static_cast<float>(std::max(sa, sb) * r.logUniform(0.4, 5));
  const int32_t zb = randomZeroPoint(r, q), zo = randomZeroPoint(r, q);
  const int32_t activation = r.range(0, 3);
  const bool convFirst = r.coin();
  size_t elements = 1;
  for (uint32_t d : conv.dimensions) elements *= d;
  std::string pattern;
  const std::vector<int32_t> other = randomValues(r, elements, q, zb, &pattern);
  hal::ModelBuilder b(std::move(m));
  const uint32_t x = b.addInput(t, conv.dimensions, sb, zb);
  L.inputs.push_back(tensorValue(t, conv.dimensions, other));
  const uint32_t out = b.addOutput(t, conv.dimensions, so, zo);
  b.addOperation(type, {convFirst ? y : x, convFirst ? x : y, b.addInt32(activation)}, {out});
  L.model = b.build();
  std::ostringstream d;
  d << L.description << " -> " << hal::toString(type)
    << (convFirst ? " (conv, other)" : " (other, conv)") << " act " << activationName(activation)
    << " | zp " << zb << " out " << zo << " | scale " << fmt(sb) << " out " << fmt(so) << " | data "
    << pattern;
  L.description = d.str();
  return L;
}

// An inverted residual, MobileNet-v2's block: a pointwise CONV_2D expansion of a model
// input, randomFusedPair's depthwise and pointwise layers over its output (one image), and
// with `withAdd` half the time, where the shapes allow, the ADD of the block's input: what the
// driver fuses whole when its estimate wins (its expansion's rows into INP in segments, ISA 1.13).
// The expansion's quantization is drawn from its own accumulators; the depthwise filter's
// scale takes the change of its input's scale, so the pair's multipliers stay as drawn.
RandomLayer randomInvertedResidual(Rng& r, const GeneratorOptions& opt, bool withAdd) {
  GeneratorOptions pairOptions = opt;
  pairOptions.maxBatch = 1;
  RandomLayer L = randomFusedPair(r, pairOptions, nullptr);
  L.type = OperationType::CONV_2D;
  hal::Model m = std::move(L.model);
  const uint32_t e = m.main.inputIndexes.at(0), y = m.main.outputIndexes.at(0);
  const std::vector<uint32_t> eDims = m.main.operands[e].dimensions;  // [1, h, w, c]
  const std::vector<uint32_t> yDims = m.main.operands[y].dimensions;
  const OperandType t = m.main.operands[e].type;
  const QRange q = rangeOf(t);
  const uint32_t h = eDims[1], w = eDims[2], c = eDims[3];
  const bool add = withAdd && yDims[1] == h && yDims[2] == w && r.coin();
  const uint32_t inC = add ? yDims[3] : randomChannels(r, std::max<uint32_t>(1, opt.maxChannels));
  std::string inPattern, wPattern, biasKind;
  const int32_t inZp = randomZeroPoint(r, q);
  const std::vector<int32_t> x = randomValues(r, size_t{h} * w * inC, q, inZp, &inPattern);
  const bool pc = r.coin(0.4);
  const QRange fq = rangeOf(pc ? kPerChannel : t);
  const int32_t fZp = pc ? 0 : randomZeroPoint(r, fq);
  const std::vector<int32_t> wv = randomValues(r, size_t{c} * inC, fq, fZp, &wPattern);
  std::vector<Column> cols = pointwiseColumns(x, inC, inZp, wv, c, fZp);
  const int32_t act = r.range(0, 3);
  const ConvQuant cq = drawConvQuant(r, cols, pc, act, q, false, &biasKind);

  // The pair's input becomes the expansion's output, in the expansion's quantization.
  hal::Operand& mid = m.main.operands[e];
  const float ratio = mid.scale / cq.out.outScale;
  mid.scale = cq.out.outScale;
  mid.zeroPoint = cq.out.outZp;
  mid.lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  hal::Operand& dwFilter = m.main.operands[m.main.operations.at(0).inputs.at(1)];
  if (dwFilter.channelQuant)
    for (float& s : dwFilter.channelQuant->scales) s *= ratio;
  else
    dwFilter.scale *= ratio;
  m.main.inputIndexes.clear();
  hal::ModelBuilder b(std::move(m));
  const std::vector<uint32_t> in =
      addConvOperands(b, t, {1, h, w, inC}, inZp, wv, {c, 1, 1, inC}, t, fZp, pc, 0, cq);
  b.addOperation(OperationType::CONV_2D,
                 {in[0], in[1], in[2], b.addInt32(ops::conv::kPaddingValid), b.addInt32(1),
                  b.addInt32(1), b.addInt32(act)},
                 {e});
  L.inputs.assign(1, tensorValue(t, {1, h, w, inC}, x));
  std::ostringstream d;
  d << "CONV_2D 1x1 [1, " << h << ", " << w << ", " << inC << "] -> " << c
    << (pc ? " per-channel" : "") << " act " << activationName(act) << " | zp in " << inZp
    << " | data " << inPattern << " weights " << wPattern << " bias " << biasKind << " -> "
    << L.description;
  if (add) {
    // The block's output: the ADD of the projection and the block's input, either side.
    hal::Model built = b.build();
    built.main.outputIndexes.clear();
    built.main.operands[y].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
    const float sy = built.main.operands[y].scale;
    const float so = static_cast<float>(std::max(sy, cq.out.inScale) * r.logUniform(0.4, 5));
    const int32_t zo = randomZeroPoint(r, q), a2 = r.range(0, 3);
    const bool convFirst = r.coin();
    b = hal::ModelBuilder(std::move(built));
    const uint32_t out = b.addOutput(t, yDims, so, zo);
    b.addOperation(OperationType::ADD,
                   {convFirst ? y : in[0], convFirst ? in[0] : y, b.addInt32(a2)}, {out});
    d << " -> ADD" << (convFirst ? " (block, input)" : " (input, block)") << " act "
      << activationName(a2) << " | out " << zo << " scale " << fmt(so);
  }
  L.model = b.build();
  // The expansion first: operations in the order they run.
  std::vector<hal::Operation>& ops = L.model.main.operations;
  const auto expansion = ops.begin() + 2;
  std::rotate(ops.begin(), expansion, expansion + 1);
  L.description = d.str();
  return L;
}

// Appends b's operations to a: b's one input is a's one output, which becomes a temporary;
// b's constants follow a's (CONSTANT_COPY bytes 8-byte aligned, CONSTANT_POOL pools).
void appendModel(hal::Model& a, const hal::Model& b) {
  const uint32_t y = a.main.outputIndexes.at(0), e = b.main.inputIndexes.at(0);
  a.main.operands[y].lifetime = hal::OperandLifeTime::TEMPORARY_VARIABLE;
  const size_t base = (a.operandValues.size() + 7) & ~size_t{7};
  a.operandValues.resize(base);
  a.operandValues.insert(a.operandValues.end(), b.operandValues.begin(), b.operandValues.end());
  const auto poolBase = static_cast<uint32_t>(a.pools.size());
  a.pools.insert(a.pools.end(), b.pools.begin(), b.pools.end());
  std::vector<uint32_t> map(b.main.operands.size());
  for (size_t i = 0; i < b.main.operands.size(); ++i) {
    if (i == e) {
      map[i] = y;
      continue;
    }
    hal::Operand o = b.main.operands[i];
    if (o.lifetime == hal::OperandLifeTime::CONSTANT_COPY)
      o.location.offset += static_cast<uint32_t>(base);
    if (o.lifetime == hal::OperandLifeTime::CONSTANT_POOL) o.location.poolIndex += poolBase;
    map[i] = static_cast<uint32_t>(a.main.operands.size());
    a.main.operands.push_back(std::move(o));
  }
  for (hal::Operation op : b.main.operations) {
    for (uint32_t& x : op.inputs) x = map.at(x);
    for (uint32_t& x : op.outputs) x = map.at(x);
    a.main.operations.push_back(std::move(op));
  }
  a.main.outputIndexes.clear();
  for (uint32_t x : b.main.outputIndexes) a.main.outputIndexes.push_back(map.at(x));
}

// Two or three of randomFusedPair's pairs, each pair's depthwise layer reading the pointwise
// output before it (one image): MobileNet-v1's body, which the driver joins into a chain
// (lowerFusedChain) when its estimate wins. A later pair's depthwise filter scale takes the
// change of its input's scale (its input is the pair before's output, in that
// quantization), so its multipliers stay as drawn.
RandomLayer randomChainOfPairs(Rng& r, const GeneratorOptions& opt) {
  GeneratorOptions pairOptions = opt;
  pairOptions.maxBatch = 1;
  RandomLayer L = randomFusedPair(r, pairOptions, nullptr);
  const int pairs = r.coin(0.3) ? 3 : 2;
  for (int i = 1; i < pairs; ++i) {
    const hal::Operand y = L.model.main.operands[L.model.main.outputIndexes.at(0)];
    RandomLayer next = randomFusedPair(r, pairOptions, &y);
    hal::Model& b = next.model;
    const float ratio = b.main.operands[b.main.inputIndexes.at(0)].scale / y.scale;
    hal::Operand& filter = b.main.operands[b.main.operations.at(0).inputs.at(1)];
    if (filter.channelQuant)
      for (float& s : filter.channelQuant->scales) s *= ratio;
    else
      filter.scale *= ratio;
    appendModel(L.model, b);
    L.description += " => " + next.description;
  }
  return L;
}

const std::vector<hal::OperationType>& randomLayerTypes() {
  static const std::vector<hal::OperationType> kTypes = {
      OperationType::CONV_2D,         OperationType::DEPTHWISE_CONV_2D,
      OperationType::GROUPED_CONV_2D, OperationType::FULLY_CONNECTED,
      OperationType::BATCH_MATMUL,    OperationType::TRANSPOSE_CONV_2D};
  return kTypes;
}

const std::vector<hal::OperationType>& onRequestLayerTypes() {
  static const std::vector<hal::OperationType> kTypes = {OperationType::QUANTIZED_16BIT_LSTM,
                                                         OperationType::QUANTIZED_LSTM,
                                                         OperationType::AVERAGE_POOL_2D,
                                                         OperationType::MAX_POOL_2D,
                                                         OperationType::MEAN,
                                                         OperationType::ADD,
                                                         OperationType::SUB,
                                                         OperationType::MUL};
  return kTypes;
}

bool isRandomLayerType(hal::OperationType type) {
  const auto& mac = randomLayerTypes();
  const auto& recurrent = onRequestLayerTypes();
  return std::find(mac.begin(), mac.end(), type) != mac.end() ||
         std::find(recurrent.begin(), recurrent.end(), type) != recurrent.end();
}

uint64_t layerSeed(uint64_t runSeed, uint64_t index) {
  uint64_t s = runSeed ^ 0x6A09E667F3BCC908ull;
  const uint64_t a = splitMix(s);
  uint64_t t = a + index * 0xD1B54A32D192ED03ull;
  return splitMix(t);
}

RandomLayer randomLayer(uint64_t seed, const GeneratorOptions& options) {
  Rng r(seed);
  std::vector<hal::OperationType> types;
  if (options.invertedResiduals) {
    RandomLayer L = randomInvertedResidual(r, options, true);
    L.seed = seed;
    return L;
  }
  if (options.chains) {
    RandomLayer L = randomChainOfPairs(r, options);
    L.seed = seed;
    return L;
  }
  if (options.overlapped) {
    GeneratorOptions one = options;
    one.maxBatch = 1;
    RandomLayer L = r.coin() ? randomFusedPair(r, one, nullptr)
                             : randomInvertedResidual(r, one, /*withAdd=*/false);
    L.seed = seed;
    return L;
  }
  if (options.fusedPairs) {
    // The two kinds of fused steps, half and half.
    RandomLayer L =
        r.coin() ? randomFusedPair(r, options, nullptr) : randomConvEltwisePair(r, options);
    L.seed = seed;
    return L;
  }
  for (hal::OperationType t : options.types)
    if (isRandomLayerType(t)) types.push_back(t);
  if (types.empty()) types = randomLayerTypes();
  const hal::OperationType type = r.pick(types);
  RandomLayer L;
  switch (type) {
    case OperationType::CONV_2D:
      L = randomConv(r, ConvKind::kConv, options);
      break;
    case OperationType::DEPTHWISE_CONV_2D:
      L = randomConv(r, ConvKind::kDepthwise, options);
      break;
    case OperationType::GROUPED_CONV_2D:
      L = randomConv(r, ConvKind::kGrouped, options);
      break;
    case OperationType::FULLY_CONNECTED:
      L = randomFullyConnected(r, options);
      break;
    case OperationType::TRANSPOSE_CONV_2D:
      L = randomTransposeConv(r, options);
      break;
    case OperationType::QUANTIZED_16BIT_LSTM:
      L = randomQuantized16BitLstm(r, options);
      break;
    case OperationType::QUANTIZED_LSTM:
      L = randomQuantizedLstm(r, options);
      break;
    case OperationType::AVERAGE_POOL_2D:
    case OperationType::MAX_POOL_2D:
      L = randomPool(r, options, type);
      break;
    case OperationType::MEAN:
      L = randomMean(r, options);
      break;
    case OperationType::ADD:
    case OperationType::SUB:
    case OperationType::MUL:
      L = randomArithmetic(r, options, type);
      break;
    default:
      L = randomBatchMatmul(r, options);
      break;
  }
  L.seed = seed;
  return L;
}

}  // namespace nncosim::verify::difftest
