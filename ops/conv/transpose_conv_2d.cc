// TRANSPOSE_CONV_2D: every input pixel scatters input * filter into the output window it
// maps to (stride apart), then bias, activation (and requantization) per output element.
// Inputs: 0 input, 1 filter [outC, fH, fW, inC], 2 bias, then either
//   implicit (9): 3 output shape (TENSOR_INT32 [4]), 4 padding scheme, 5 stride w,
//                 6 stride h, 7 activation, 8 layout
//   explicit (11): 3..6 pad left, right, top, bottom, 7 stride w, 8 stride h,
//                  9 activation, 10 layout
// Right/bottom paddings may be negative (NNAPI uses that to pick among the output sizes
// a strided transpose convolution can produce).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_kernels.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/conv_params.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

struct TransposeGeometry {
  uint32_t batches = 0, inH = 0, inW = 0, inC = 0;
  uint32_t outH = 0, outW = 0, outC = 0;
  uint32_t filterH = 0, filterW = 0;
  int32_t strideH = 1, strideW = 1;
  int32_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int32_t activation = 0;
  bool nchw = false;
  std::vector<uint32_t> outputNhwcDims() const { return {batches, outH, outW, outC}; }
};

bool isExplicit(const OperationContext& ctx) { return ctx.numInputs() == 11; }
size_t activationIndex(const OperationContext& ctx) { return isExplicit(ctx) ? 9 : 7; }
size_t layoutIndex(const OperationContext& ctx) { return isExplicit(ctx) ? 10 : 8; }

hal::Result<TransposeGeometry> geometry(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {9, 11}, 1));
  for (size_t i = 3; i < ctx.numInputs(); ++i)
    if (!ctx.hasInputValue(i)) return hal::fail(inputName(ctx, i), ": has no value");
  NNC_TRY(checkRank(ctx, 0, 4));
  NNC_TRY(checkRank(ctx, 1, 4));
  NNC_TRY(checkRank(ctx, 2, 1));

  TransposeGeometry g;
  g.nchw = boolScalar(ctx, layoutIndex(ctx));
  g.activation = intScalar(ctx, activationIndex(ctx));
  NNC_TRY(checkActivation(g.activation, ctx, activationIndex(ctx)));
  const Shape& in = ctx.inputShape(0);
  const Shape& filter = ctx.inputShape(1);
  const Shape& bias = ctx.inputShape(2);
  const std::vector<uint32_t> d = toNhwcDims(in.dimensions, g.nchw);
  g.batches = d[0];
  g.inH = d[1];
  g.inW = d[2];
  g.inC = d[3];
  g.outC = filter.dim(0);
  g.filterH = filter.dim(1);
  g.filterW = filter.dim(2);

  if (isExplicit(ctx)) {
    g.padLeft = intScalar(ctx, 3);
    g.padRight = intScalar(ctx, 4);
    g.padTop = intScalar(ctx, 5);
    g.padBottom = intScalar(ctx, 6);
    g.strideW = intScalar(ctx, 7);
    g.strideH = intScalar(ctx, 8);
  } else {
    const Shape& os = ctx.inputShape(3);
    if (os.rank() != 1 || os.dim(0) != 4)
      return hal::fail(inputName(ctx, 3),
                       ": the output shape must be a 1-D tensor of 4 "
                       "elements, found shape ",
                       toString(os.dimensions));
    const int32_t* shape = ctx.input<int32_t>(3);
    const int32_t scheme = intScalar(ctx, 4);
    NNC_TRY(checkPaddingScheme(scheme, ctx, 4));
    g.strideW = intScalar(ctx, 5);
    g.strideH = intScalar(ctx, 6);
    if (g.strideW <= 0 || g.strideH <= 0)
      return hal::fail("strides (w ", g.strideW, ", h ", g.strideH, ") must be > 0");
    // Only the spatial sizes of the requested shape matter: they fix the padding.
    const int32_t wantW = g.nchw ? shape[3] : shape[2];
    const int32_t wantH = g.nchw ? shape[2] : shape[1];
    explicitPadding(wantW, g.strideW, 1, static_cast<int32_t>(g.filterW), scheme, true, &g.padLeft,
                    &g.padRight);
    explicitPadding(wantH, g.strideH, 1, static_cast<int32_t>(g.filterH), scheme, true, &g.padTop,
                    &g.padBottom);
  }
  if (g.padLeft < 0 || g.padTop < 0)
    return hal::fail("paddings left ", g.padLeft, " and top ", g.padTop, " must be >= 0");
  if (g.strideW <= 0 || g.strideH <= 0)
    return hal::fail("strides (w ", g.strideW, ", h ", g.strideH, ") must be > 0");

  if (filter.dim(3) != g.inC)
    return hal::fail(inputName(ctx, 1), ": filter shape ", toString(filter.dimensions),
                     " has depth ", filter.dim(3), " but the input has ", g.inC, " channels");
  if (bias.dim(0) != g.outC)
    return hal::fail(inputName(ctx, 2), ": bias has ", bias.dim(0), " elements for ", g.outC,
                     " output channels");
  if (g.inH == 0 || g.inW == 0 || g.inC == 0 || g.outC == 0 || g.filterH == 0 || g.filterW == 0)
    return hal::fail("only the batch dimension may be 0: input ", toString(in.dimensions),
                     ", filter ", toString(filter.dimensions));
  const int64_t outW =
      int64_t{g.inW} * g.strideW + g.filterW - g.strideW - g.padLeft - int64_t{g.padRight};
  const int64_t outH =
      int64_t{g.inH} * g.strideH + g.filterH - g.strideH - g.padTop - int64_t{g.padBottom};
  const auto clampH = static_cast<uint32_t>(std::clamp<int64_t>(outH, 0, UINT32_MAX));
  const auto clampW = static_cast<uint32_t>(std::clamp<int64_t>(outW, 0, UINT32_MAX));
  NNC_TRY(checkOutputSize(outH, outW, {g.batches, clampH, clampW, g.outC}));
  g.outW = static_cast<uint32_t>(outW);
  g.outH = static_cast<uint32_t>(outH);
  // The scatter accumulates in 64 bits per output element: bound that buffer like outputs.
  const uint64_t accBytes = uint64_t{g.batches} * g.outH * g.outW * g.outC * sizeof(int64_t);
  if (accBytes > (uint64_t{1} << 31))
    return hal::fail("output ", g.batches, "x", g.outH, "x", g.outW, "x", g.outC, " needs a ",
                     accBytes, "-byte accumulator, more than the 2 GiB limit");
  return g;
}

// Scatter: acc[b, y*stride - pad + fy, x*stride - pad + fx, oc] += x * w over inputs.
template <typename Acc, typename TIn, typename TW>
std::vector<Acc> scatter(const TransposeGeometry& g, const TIn* in, Acc inZp, const TW* filter,
                         Acc wZp) {
  std::vector<Acc> acc(size_t{g.batches} * g.outH * g.outW * g.outC, Acc(0));
  for (uint32_t b = 0; b < g.batches; ++b) {
    for (uint32_t y = 0; y < g.inH; ++y) {
      const int64_t oy0 = int64_t{y} * g.strideH - g.padTop;
      for (uint32_t x = 0; x < g.inW; ++x) {
        const int64_t ox0 = int64_t{x} * g.strideW - g.padLeft;
        const TIn* px = in + ((size_t{b} * g.inH + y) * g.inW + x) * g.inC;
        for (uint32_t oc = 0; oc < g.outC; ++oc) {
          for (uint32_t fy = 0; fy < g.filterH; ++fy) {
            const int64_t oy = oy0 + fy;
            if (oy < 0 || oy >= g.outH) continue;
            for (uint32_t fx = 0; fx < g.filterW; ++fx) {
              const int64_t ox = ox0 + fx;
              if (ox < 0 || ox >= g.outW) continue;
              const TW* pw = filter + ((size_t{oc} * g.filterH + fy) * g.filterW + fx) * g.inC;
              Acc& o = acc[((size_t{b} * g.outH + oy) * g.outW + ox) * g.outC + oc];
              // Added one product at a time, in NNAPI's order (matters for floats only).
              for (uint32_t k = 0; k < g.inC; ++k)
                o += (static_cast<Acc>(px[k]) - inZp) * (static_cast<Acc>(pw[k]) - wZp);
            }
          }
        }
      }
    }
  }
  return acc;
}

Status runFloat(OperationContext& ctx, const TransposeGeometry& g) {
  const std::vector<float> in = loadFloatNhwc(ctx, 0, g.nchw);
  const std::vector<float> filter = loadFloat(ctx, 1);
  const std::vector<float> bias = loadFloat(ctx, 2);
  std::vector<float> out = scatter<float>(g, in.data(), 0.0f, filter.data(), 0.0f);
  const FloatRange r = floatActivationRange(g.activation);
  const FloatStage stage{bias.data(), r.min, r.max};
  for (size_t i = 0; i < out.size(); ++i) out[i] = stage(out[i], i % g.outC);
  storeFloatNhwc(ctx, 0, out, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

template <typename T, typename TW>
Status runQuant(OperationContext& ctx, const TransposeGeometry& g) {
  NNC_ASSIGN_OR_RETURN(auto p,
                       makeConvQuantParams(ctx.inputShape(0), ctx.inputShape(1), &ctx.inputShape(2),
                                           ctx.outputShape(0), g.activation, g.outC));
  const std::vector<T> in = loadNhwc<T>(ctx, 0, g.nchw);
  const std::vector<int64_t> acc = scatter<int64_t>(g, in.data(), int64_t{p.inputZeroPoint},
                                                    ctx.input<TW>(1), int64_t{p.filterZeroPoint});
  const QuantStageFor<T> stage{ctx.input<int32_t>(2), &p};
  std::vector<T> out(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) out[i] = stage(acc[i], i % g.outC);
  storeNhwc(ctx, 0, out, g.outputNhwcDims(), g.nchw);
  return Status::Ok();
}

}  // namespace

Status validateTransposeConv2D(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {9, 11}, 1));
  const OperandType inType = ctx.inputType(0);
  NNC_TRY(checkInputType(ctx, 0, inType));
  // The 16x8 mode: int16 activations with int8 symmetric filters, int64 sums
  // (docs/quantization.md section 10), as TFLite's int16 TRANSPOSE_CONV.
  const bool wide = isQuant16(inType) && ctx.quant16x8();
  if (!isFloatTensor(inType) && !isQuant8(inType) && !wide)
    return unsupportedInputType(ctx, 0,
                                "TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_QUANT8_ASYMM or "
                                "TENSOR_QUANT8_ASYMM_SIGNED");
  if (isFloatTensor(inType)) {
    NNC_TRY(checkInputTypes(ctx, 1, {inType, inType}));
  } else {
    if (ctx.isOmitted(1)) return hal::fail(inputName(ctx, 1), ": the filter is omitted");
    const OperandType filterType = ctx.inputType(1);
    const OperandType perTensor = wide ? OperandType::TENSOR_QUANT8_SYMM : inType;
    if (filterType != perTensor && filterType != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)
      return hal::fail(inputName(ctx, 1), ": filter type ", hal::toString(filterType), " must be ",
                       hal::toString(perTensor), " or TENSOR_QUANT8_SYMM_PER_CHANNEL");
    if (filterType == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      const Shape& f = ctx.inputShape(1);
      if (!f.channelQuant || f.channelQuant->channelDim != 0)
        return hal::fail(inputName(ctx, 1), ": per-channel quantization must be along ",
                         "dimension 0 (output channels)");
    }
    NNC_TRY(checkInputType(ctx, 2, OperandType::TENSOR_INT32));
  }
  if (isExplicit(ctx)) {
    for (size_t i = 3; i <= 9; ++i) NNC_TRY(checkInputType(ctx, i, OperandType::INT32));
  } else {
    NNC_TRY(checkInputType(ctx, 3, OperandType::TENSOR_INT32));
    for (size_t i = 4; i <= 7; ++i) NNC_TRY(checkInputType(ctx, i, OperandType::INT32));
  }
  NNC_TRY(checkInputType(ctx, layoutIndex(ctx), OperandType::BOOL));
  NNC_TRY(checkOutputType(ctx, 0, inType));
  NNC_TRY(checkRankIfKnown(ctx, 0, 4));
  NNC_TRY(checkRankIfKnown(ctx, 1, 4));
  NNC_TRY(checkRankIfKnown(ctx, 2, 1));
  if (!isExplicit(ctx)) NNC_TRY(checkRankIfKnown(ctx, 3, 1));
  if (isQuant8(inType) || wide) {
    const Shape& filter = ctx.inputShape(1);
    const uint32_t channels =
        filter.channelQuant ? static_cast<uint32_t>(filter.channelQuant->scales.size()) : 1;
    NNC_ASSIGN_OR_RETURN(auto p,
                         makeConvQuantParams(ctx.inputShape(0), filter, &ctx.inputShape(2),
                                             ctx.outputShape(0), quant::kActNone, channels));
  }
  const size_t act = activationIndex(ctx);
  if (ctx.hasInputValue(act)) NNC_TRY(checkActivation(intScalar(ctx, act), ctx, act));
  if (!isExplicit(ctx) && ctx.hasInputValue(4))
    NNC_TRY(checkPaddingScheme(intScalar(ctx, 4), ctx, 4));
  return Status::Ok();
}

Status prepareTransposeConv2D(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, geometry(ctx));
  Shape out = ctx.outputShape(0);
  out.dimensions = fromNhwcDims(g.outputNhwcDims(), g.nchw);
  return ctx.setOutputShape(0, out);
}

Status executeTransposeConv2D(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, geometry(ctx));
  if (g.batches == 0) return Status::Ok();
  const bool perChannel = ctx.inputType(1) == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL;
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_FLOAT16:
      return runFloat(ctx, g);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return perChannel ? runQuant<uint8_t, int8_t>(ctx, g) : runQuant<uint8_t, uint8_t>(ctx, g);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return runQuant<int8_t, int8_t>(ctx, g);
    case OperandType::TENSOR_QUANT16_SYMM:
      return runQuant<int16_t, int8_t>(ctx, g);
    default:
      return hal::fail("unsupported input type ", hal::toString(ctx.inputType(0)));
  }
}

}  // namespace nncosim::ops::conv
