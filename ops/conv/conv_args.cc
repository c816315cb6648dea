#include "ops/conv/conv_args.h"

#include <algorithm>
#include <cstdint>

#include "ops/conv/conv_common.h"
#include "ops/conv/conv_params.h"

namespace nncosim::ops::conv {
namespace {

using hal::OperandType;

const char* kindName(ConvKind kind) {
  switch (kind) {
    case ConvKind::kConv:
      return "CONV_2D";
    case ConvKind::kDepthwise:
      return "DEPTHWISE_CONV_2D";
    case ConvKind::kGrouped:
      return "GROUPED_CONV_2D";
  }
  return "?";
}

// The filter dimension that holds the output channels (and the per-channel scales).
uint32_t filterChannelDim(ConvKind kind) { return kind == ConvKind::kDepthwise ? 3 : 0; }

}  // namespace

hal::Result<ConvSignature> convSignature(const OperationContext& ctx, ConvKind kind) {
  const size_t extra = kind == ConvKind::kConv ? 0 : 1;
  const size_t implicitCore = 7 + extra;
  const size_t explicitCore = 10 + extra;
  if (kind == ConvKind::kGrouped) {
    NNC_TRY(checkCounts(ctx, {implicitCore + 1, explicitCore + 1}, 1));
  } else {
    NNC_TRY(checkCounts(
        ctx, {implicitCore, implicitCore + 1, explicitCore, explicitCore + 1, explicitCore + 3},
        1));
  }
  const size_t n = ctx.numInputs();
  ConvSignature s;
  // As NNAPI decides it: an INT32 where the layout flag of the implicit form would be,
  // with enough inputs for the explicit form, means explicit padding.
  s.explicitPadding = n >= explicitCore && !ctx.isOmitted(implicitCore) &&
                      ctx.inputType(implicitCore) == OperandType::INT32;
  s.core = s.explicitPadding ? explicitCore : implicitCore;
  s.hasLayout = n >= s.core + 1;
  if (n == s.core + 2)
    return hal::fail(kindName(kind), ": ", n,
                     " inputs give only one dilation factor; both (width, height) are required");
  s.hasDilation = n == s.core + 3;
  if (n > s.core + 3)
    return hal::fail(kindName(kind), ": ", n, " inputs is too many for ",
                     s.explicitPadding ? "explicit" : "implicit", " padding");
  if (kind == ConvKind::kGrouped && (!s.hasLayout || s.hasDilation))
    return hal::fail("GROUPED_CONV_2D takes 9 or 12 inputs (layout flag, no dilation)");
  s.activationIndex = s.core - 1;
  s.extraIndex = extra ? s.core - 2 : 0;
  return s;
}

Status validateConvOperands(const OperationContext& ctx, ConvKind kind) {
  NNC_ASSIGN_OR_RETURN(auto sigOr, convSignature(ctx, kind));
  const ConvSignature& sig = sigOr;

  const OperandType inType = ctx.inputType(0);
  NNC_TRY(checkInputType(ctx, 0, inType));
  // The 16x8 mode: int16 activations with int8 symmetric filters (docs/quantization.md).
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
    // Per-tensor filters: the input's type, or int8 symmetric in the 16x8 mode.
    const OperandType perTensor = wide ? OperandType::TENSOR_QUANT8_SYMM : inType;
    if (filterType != perTensor && filterType != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL)
      return hal::fail(inputName(ctx, 1), ": filter type ", hal::toString(filterType), " must be ",
                       hal::toString(perTensor), " or TENSOR_QUANT8_SYMM_PER_CHANNEL for a ",
                       hal::toString(inType), " input");
    if (filterType == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
      const Shape& f = ctx.inputShape(1);
      const uint32_t want = filterChannelDim(kind);
      if (!f.channelQuant)
        return hal::fail(inputName(ctx, 1), ": per-channel filter without channel scales");
      if (f.channelQuant->channelDim != want)
        return hal::fail(inputName(ctx, 1), ": per-channel quantization along dimension ",
                         f.channelQuant->channelDim, ", ", kindName(kind), " needs ", want);
    }
    NNC_TRY(checkInputType(ctx, 2, OperandType::TENSOR_INT32));
  }
  // Scalar parameters: all INT32 up to the layout flag.
  for (size_t i = 3; i < sig.core; ++i) NNC_TRY(checkInputType(ctx, i, OperandType::INT32));
  if (sig.hasLayout) NNC_TRY(checkInputType(ctx, sig.core, OperandType::BOOL));
  if (sig.hasDilation)
    NNC_TRY(checkInputTypes(ctx, sig.core + 1, {OperandType::INT32, OperandType::INT32}));
  NNC_TRY(checkOutputType(ctx, 0, inType));

  NNC_TRY(checkRankIfKnown(ctx, 0, 4));
  NNC_TRY(checkRankIfKnown(ctx, 1, 4));
  NNC_TRY(checkRankIfKnown(ctx, 2, 1));

  if (isQuant8(inType) || wide) {
    // The scales are fixed in the model: check the bias scale rule (and, in the 16x8
    // mode, the zero points and shift range) now.
    const Shape& filter = ctx.inputShape(1);
    const uint32_t channels =
        filter.channelQuant ? static_cast<uint32_t>(filter.channelQuant->scales.size()) : 1;
    NNC_ASSIGN_OR_RETURN(auto p,
                         makeConvQuantParams(ctx.inputShape(0), filter, &ctx.inputShape(2),
                                             ctx.outputShape(0), quant::kActNone, channels));
  }
  // Parameter values known now (constants) are checked early.
  if (ctx.hasInputValue(sig.activationIndex))
    NNC_TRY(checkActivation(intScalar(ctx, sig.activationIndex), ctx, sig.activationIndex));
  if (!sig.explicitPadding && ctx.hasInputValue(3))
    NNC_TRY(checkPaddingScheme(intScalar(ctx, 3), ctx, 3));
  return Status::Ok();
}

hal::Result<ConvGeometry> convGeometry(const OperationContext& ctx, ConvKind kind) {
  NNC_ASSIGN_OR_RETURN(auto sigOr, convSignature(ctx, kind));
  const ConvSignature& sig = sigOr;
  for (size_t i = 3; i < ctx.numInputs(); ++i)
    if (!ctx.hasInputValue(i)) return hal::fail(inputName(ctx, i), ": has no value");

  NNC_TRY(checkRank(ctx, 0, 4));
  NNC_TRY(checkRank(ctx, 1, 4));
  NNC_TRY(checkRank(ctx, 2, 1));

  ConvGeometry g;
  int32_t scheme = 0;
  if (sig.explicitPadding) {
    g.padLeft = intScalar(ctx, 3);
    g.padRight = intScalar(ctx, 4);
    g.padTop = intScalar(ctx, 5);
    g.padBottom = intScalar(ctx, 6);
    g.strideW = intScalar(ctx, 7);
    g.strideH = intScalar(ctx, 8);
  } else {
    scheme = intScalar(ctx, 3);
    NNC_TRY(checkPaddingScheme(scheme, ctx, 3));
    g.strideW = intScalar(ctx, 4);
    g.strideH = intScalar(ctx, 5);
  }
  if (kind != ConvKind::kConv) g.extra = intScalar(ctx, sig.extraIndex);
  g.activation = intScalar(ctx, sig.activationIndex);
  NNC_TRY(checkActivation(g.activation, ctx, sig.activationIndex));
  if (sig.hasLayout) g.nchw = boolScalar(ctx, sig.core);
  if (sig.hasDilation) {
    g.dilationW = intScalar(ctx, sig.core + 1);
    g.dilationH = intScalar(ctx, sig.core + 2);
  }
  if (g.strideW <= 0 || g.strideH <= 0)
    return hal::fail("strides (w ", g.strideW, ", h ", g.strideH, ") must be > 0");
  if (g.dilationW <= 0 || g.dilationH <= 0)
    return hal::fail("dilation factors (w ", g.dilationW, ", h ", g.dilationH, ") must be > 0");
  if (kind == ConvKind::kDepthwise && g.extra <= 0)
    return hal::fail(inputName(ctx, sig.extraIndex), ": depth multiplier ", g.extra,
                     " must be > 0");
  if (kind == ConvKind::kGrouped && g.extra <= 0)
    return hal::fail(inputName(ctx, sig.extraIndex), ": group count ", g.extra, " must be > 0");

  const Shape& in = ctx.inputShape(0);
  const Shape& filter = ctx.inputShape(1);
  const Shape& bias = ctx.inputShape(2);
  const std::vector<uint32_t> d = toNhwcDims(in.dimensions, g.nchw);
  g.batches = d[0];
  g.inH = d[1];
  g.inW = d[2];
  g.inC = d[3];
  g.filterH = filter.dim(1);
  g.filterW = filter.dim(2);
  if (g.inH == 0 || g.inW == 0 || g.inC == 0)
    return hal::fail(inputName(ctx, 0), ": only the batch dimension may be 0, shape is ",
                     toString(in.dimensions));
  if (g.filterH == 0 || g.filterW == 0)
    return hal::fail(inputName(ctx, 1), ": filter shape ", toString(filter.dimensions),
                     " has a zero spatial dimension");

  switch (kind) {
    case ConvKind::kConv:
      g.outC = filter.dim(0);
      if (filter.dim(3) != g.inC)
        return hal::fail(inputName(ctx, 1), ": filter shape ", toString(filter.dimensions),
                         " has depth ", filter.dim(3), " but the input has ", g.inC, " channels");
      break;
    case ConvKind::kDepthwise:
      g.outC = filter.dim(3);
      if (filter.dim(0) != 1)
        return hal::fail(inputName(ctx, 1), ": depthwise filter shape ",
                         toString(filter.dimensions), " must have dimension 0 equal to 1");
      if (uint64_t{g.inC} * static_cast<uint64_t>(g.extra) != g.outC)
        return hal::fail(inputName(ctx, 1), ": depthwise filter has ", g.outC,
                         " output channels but input channels ", g.inC, " * depth multiplier ",
                         g.extra, " = ", uint64_t{g.inC} * static_cast<uint64_t>(g.extra));
      break;
    case ConvKind::kGrouped:
      g.outC = filter.dim(0);
      if (uint64_t{filter.dim(3)} * static_cast<uint64_t>(g.extra) != g.inC)
        return hal::fail(inputName(ctx, 1), ": filter depth ", filter.dim(3), " * groups ", g.extra,
                         " must equal the input's ", g.inC, " channels");
      if (g.outC % static_cast<uint32_t>(g.extra) != 0)
        return hal::fail(inputName(ctx, 1), ": ", g.outC, " output channels are not divisible by ",
                         g.extra, " groups");
      break;
  }
  if (g.outC == 0)
    return hal::fail(inputName(ctx, 1), ": filter shape ", toString(filter.dimensions),
                     " has no output channels");
  if (bias.dim(0) != g.outC)
    return hal::fail(inputName(ctx, 2), ": bias has ", bias.dim(0), " elements for ", g.outC,
                     " output channels");

  if (!sig.explicitPadding) {
    explicitPadding(static_cast<int32_t>(g.inW), g.strideW, g.dilationW,
                    static_cast<int32_t>(g.filterW), scheme, false, &g.padLeft, &g.padRight);
    explicitPadding(static_cast<int32_t>(g.inH), g.strideH, g.dilationH,
                    static_cast<int32_t>(g.filterH), scheme, false, &g.padTop, &g.padBottom);
  }
  if (g.padLeft < 0 || g.padRight < 0 || g.padTop < 0 || g.padBottom < 0)
    return hal::fail("paddings (left ", g.padLeft, ", right ", g.padRight, ", top ", g.padTop,
                     ", bottom ", g.padBottom, ") must be >= 0");
  const int64_t effW = (int64_t{g.filterW} - 1) * g.dilationW + 1;
  const int64_t effH = (int64_t{g.filterH} - 1) * g.dilationH + 1;
  if (effW <= g.padLeft || effW <= g.padRight || effH <= g.padTop || effH <= g.padBottom)
    return hal::fail("paddings (left ", g.padLeft, ", right ", g.padRight, ", top ", g.padTop,
                     ", bottom ", g.padBottom, ") must be smaller than the effective filter ", effW,
                     "x", effH, " (w x h)");
  const int64_t outW = convOutSize(g.inW, g.filterW, g.strideW, g.dilationW, g.padLeft, g.padRight);
  const int64_t outH = convOutSize(g.inH, g.filterH, g.strideH, g.dilationH, g.padTop, g.padBottom);
  if (outW <= 0 || outH <= 0)
    return hal::fail("input ", g.inW, "x", g.inH, " (w x h) with padding is smaller than the ",
                     effW, "x", effH, " effective filter: output would be ", outW, "x", outH);
  NNC_TRY(checkOutputSize(outH, outW,
                          {g.batches, static_cast<uint32_t>(std::min<int64_t>(outH, UINT32_MAX)),
                           static_cast<uint32_t>(std::min<int64_t>(outW, UINT32_MAX)), g.outC}));
  g.outW = static_cast<uint32_t>(outW);
  g.outH = static_cast<uint32_t>(outH);
  return g;
}

Status prepareConv(OperationContext& ctx, ConvKind kind) {
  NNC_ASSIGN_OR_RETURN(auto g, convGeometry(ctx, kind));
  Shape out = ctx.outputShape(0);
  out.dimensions = fromNhwcDims(g.outputNhwcDims(), g.nchw);
  return ctx.setOutputShape(0, out);
}

}  // namespace nncosim::ops::conv
