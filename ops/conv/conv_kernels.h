// NHWC kernels of the conv family, generic over the arithmetic:
//   float:     Acc = float,   zero points 0, FloatStage adds the bias and clamps;
//   quantized: Acc = int64_t, products (x - xZp) * (w - wZp), QuantStage adds the bias,
//              requantizes and clamps;
//   16x8:      Acc = int64_t, zero points 0, WideQuantStage adds the bias, requantizes
//              the exact int64 sum (requantize64) and clamps to int16.
// In the quant8 path the int64 accumulator is reduced modulo 2^32 before the output
// stage, which equals the wrapping int32 accumulation of NNAPI's kernels (and of the
// NPU's MAC array). The 16x8 path keeps all 64 bits, as TFLite's 16x8 kernels do (int16 x
// int8 products are below 2^22, so no real layer's sum comes near 2^63).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "ops/conv/conv_args.h"
#include "ops/conv/conv_params.h"

namespace nncosim::ops::conv {

// Wraps an accumulator to int32 as two's-complement int32 arithmetic would.
inline int32_t wrapToInt32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

struct FloatStage {
  const float* bias;  // may be nullptr
  float lo, hi;
  float operator()(float acc, uint32_t c) const {
    const float v = bias ? acc + bias[c] : acc;
    return std::min(std::max(v, lo), hi);
  }
};

template <typename TOut>
struct QuantStage {
  const int32_t* bias;  // may be nullptr
  const ConvQuantParams* params;
  TOut operator()(int64_t acc, uint32_t c) const {
    const int64_t withBias = bias ? acc + bias[c] : acc;
    return static_cast<TOut>(params->requantize(wrapToInt32(withBias), c));
  }
};

// The 16x8 mode's output stage (no wrap: the accumulator is int64 end to end).
struct WideQuantStage {
  const int32_t* bias;  // may be nullptr
  const ConvQuantParams* params;
  int16_t operator()(int64_t acc, uint32_t c) const {
    const int64_t withBias = bias ? acc + bias[c] : acc;
    return static_cast<int16_t>(params->requantize64(withBias, c));
  }
};

// The output stage of a quantized layer with output element type TOut.
template <typename TOut>
using QuantStageFor =
    std::conditional_t<std::is_same_v<TOut, int16_t>, WideQuantStage, QuantStage<TOut>>;

// CONV_2D (groups == 1) and GROUPED_CONV_2D. Filter [outC, fH, fW, inC / groups]; output
// channel oc belongs to group oc / (outC / groups) and reads that group's input channels.
template <typename Acc, typename TIn, typename TW, typename Stage, typename TOut>
void groupedConvNhwc(const ConvGeometry& g, uint32_t groups, const TIn* in, Acc inZp,
                     const TW* filter, Acc wZp, const Stage& stage, TOut* out) {
  const uint32_t groupIn = g.inC / groups;
  const uint32_t groupOut = g.outC / groups;
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t oy = 0; oy < g.outH; ++oy) {
      const int64_t y0 = int64_t{oy} * g.strideH - g.padTop;
      for (uint32_t ox = 0; ox < g.outW; ++ox) {
        const int64_t x0 = int64_t{ox} * g.strideW - g.padLeft;
        TOut* o = out + ((size_t{b} * g.outH + oy) * g.outW + ox) * g.outC;
        for (uint32_t oc = 0; oc < g.outC; ++oc) {
          const uint32_t group = oc / groupOut;
          Acc acc = 0;
          for (uint32_t fy = 0; fy < g.filterH; ++fy) {
            const int64_t iy = y0 + int64_t{fy} * g.dilationH;
            if (iy < 0 || iy >= g.inH) continue;  // padding contributes (xZp - xZp) = 0
            for (uint32_t fx = 0; fx < g.filterW; ++fx) {
              const int64_t ix = x0 + int64_t{fx} * g.dilationW;
              if (ix < 0 || ix >= g.inW) continue;
              const TIn* px =
                  in + ((size_t{b} * g.inH + iy) * g.inW + ix) * g.inC + size_t{group} * groupIn;
              const TW* pw = filter + ((size_t{oc} * g.filterH + fy) * g.filterW + fx) * groupIn;
              for (uint32_t k = 0; k < groupIn; ++k)
                acc += (static_cast<Acc>(px[k]) - inZp) * (static_cast<Acc>(pw[k]) - wZp);
            }
          }
          o[oc] = stage(acc, oc);
        }
      }
    }
  }
}

// DEPTHWISE_CONV_2D. Filter [1, fH, fW, outC]; output channel oc = ic * multiplier + m
// reads input channel ic.
template <typename Acc, typename TIn, typename TW, typename Stage, typename TOut>
void depthwiseConvNhwc(const ConvGeometry& g, const TIn* in, Acc inZp, const TW* filter, Acc wZp,
                       const Stage& stage, TOut* out) {
  const uint32_t multiplier = static_cast<uint32_t>(g.extra);
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t oy = 0; oy < g.outH; ++oy) {
      const int64_t y0 = int64_t{oy} * g.strideH - g.padTop;
      for (uint32_t ox = 0; ox < g.outW; ++ox) {
        const int64_t x0 = int64_t{ox} * g.strideW - g.padLeft;
        TOut* o = out + ((size_t{b} * g.outH + oy) * g.outW + ox) * g.outC;
        for (uint32_t oc = 0; oc < g.outC; ++oc) {
          const uint32_t ic = oc / multiplier;
          Acc acc = 0;
          for (uint32_t fy = 0; fy < g.filterH; ++fy) {
            const int64_t iy = y0 + int64_t{fy} * g.dilationH;
            if (iy < 0 || iy >= g.inH) continue;
            for (uint32_t fx = 0; fx < g.filterW; ++fx) {
              const int64_t ix = x0 + int64_t{fx} * g.dilationW;
              if (ix < 0 || ix >= g.inW) continue;
              const Acc x = in[((size_t{b} * g.inH + iy) * g.inW + ix) * g.inC + ic];
              const Acc w = filter[(size_t{fy} * g.filterW + fx) * g.outC + oc];
              acc += (x - inZp) * (w - wZp);
            }
          }
          o[oc] = stage(acc, oc);
        }
      }
    }
  }
}

}  // namespace nncosim::ops::conv
