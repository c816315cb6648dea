// TRANSPOSE_CONV_2D: every input pixel scatters input * filter into the output window it
// maps to (stride apart), then bias, activation (and requantization) per output element.
// The inputs and the geometry: transpose_conv_geometry.h.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_kernels.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/conv_params.h"
#include "ops/conv/transpose_conv_geometry.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

// Scatter: acc[b, y*stride - pad + fy, x*stride - pad + fx, oc] += x * w over inputs.
template <typename Acc, typename TIn, typename TW>
std::vector<Acc> scatter(const TransposeConvGeometry& g, const TIn* in, Acc inZp, const TW* filter,
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

Status runFloat(OperationContext& ctx, const TransposeConvGeometry& g) {
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
Status runQuant(OperationContext& ctx, const TransposeConvGeometry& g) {
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
  if (isExplicitTransposeConv(ctx)) {
    for (size_t i = 3; i <= 9; ++i) NNC_TRY(checkInputType(ctx, i, OperandType::INT32));
  } else {
    NNC_TRY(checkInputType(ctx, 3, OperandType::TENSOR_INT32));
    for (size_t i = 4; i <= 7; ++i) NNC_TRY(checkInputType(ctx, i, OperandType::INT32));
  }
  NNC_TRY(checkInputType(ctx, transposeConvLayoutIndex(ctx), OperandType::BOOL));
  NNC_TRY(checkOutputType(ctx, 0, inType));
  NNC_TRY(checkRankIfKnown(ctx, 0, 4));
  NNC_TRY(checkRankIfKnown(ctx, 1, 4));
  NNC_TRY(checkRankIfKnown(ctx, 2, 1));
  if (!isExplicitTransposeConv(ctx)) NNC_TRY(checkRankIfKnown(ctx, 3, 1));
  if (isQuant8(inType) || wide) {
    const Shape& filter = ctx.inputShape(1);
    const uint32_t channels =
        filter.channelQuant ? static_cast<uint32_t>(filter.channelQuant->scales.size()) : 1;
    NNC_ASSIGN_OR_RETURN(auto p,
                         makeConvQuantParams(ctx.inputShape(0), filter, &ctx.inputShape(2),
                                             ctx.outputShape(0), quant::kActNone, channels));
  }
  const size_t act = transposeConvActivationIndex(ctx);
  if (ctx.hasInputValue(act)) NNC_TRY(checkActivation(intScalar(ctx, act), ctx, act));
  if (!isExplicitTransposeConv(ctx) && ctx.hasInputValue(4))
    NNC_TRY(checkPaddingScheme(intScalar(ctx, 4), ctx, 4));
  return Status::Ok();
}

Status prepareTransposeConv2D(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, transposeConvGeometry(ctx));
  Shape out = ctx.outputShape(0);
  out.dimensions = fromNhwcDims(g.outputNhwcDims(), g.nchw);
  return ctx.setOutputShape(0, out);
}

Status executeTransposeConv2D(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, transposeConvGeometry(ctx));
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
