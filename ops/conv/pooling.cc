#include "ops/conv/pooling.h"

#include <algorithm>
#include <cstdint>

#include "ops/conv/conv_common.h"

namespace nncosim::ops::conv {

using hal::OperandType;

namespace {

bool isExplicit(const OperationContext& ctx) { return ctx.numInputs() >= 10; }
size_t activationIndex(const OperationContext& ctx) { return isExplicit(ctx) ? 9 : 6; }
bool hasLayout(const OperationContext& ctx) {
  return ctx.numInputs() == 8 || ctx.numInputs() == 11;
}

}  // namespace

Status validatePool(const OperationContext& ctx, PoolKind kind) {
  NNC_TRY(checkCounts(ctx, {7, 8, 10, 11}, 1));
  const OperandType t = ctx.inputType(0);
  NNC_TRY(checkInputType(ctx, 0, t));
  // The 16x8 mode (docs/quantization.md §10) also pools its int16 activations.
  const bool wide = kind != PoolKind::kL2 && isQuant16(t) && ctx.quant16x8();
  const bool quantOk = kind != PoolKind::kL2 && isQuant8(t);
  if (kind == PoolKind::kL2 && !isFloatTensor(t))
    return hal::fail(inputName(ctx, 0), ": unsupported type ", hal::toString(t),
                     " (expected TENSOR_FLOAT32 or TENSOR_FLOAT16)");
  if (!isFloatTensor(t) && !quantOk && !wide)
    return unsupportedInputType(ctx, 0,
                                "TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_QUANT8_ASYMM or "
                                "TENSOR_QUANT8_ASYMM_SIGNED");
  if (wide) {
    // As TFLite's int16 pools: the output keeps the input's scale, symmetric.
    const Shape& in = ctx.inputShape(0);
    const Shape& out = ctx.outputShape(0);
    if (in.zeroPoint != 0 || out.zeroPoint != 0)
      return hal::fail("16x8 mode: input and output zero points (", in.zeroPoint, ", ",
                       out.zeroPoint, ") must be 0");
    if (in.scale != out.scale)
      return hal::fail("16x8 mode: output scale ", out.scale, " must equal the input scale ",
                       in.scale);
  }
  const size_t last = activationIndex(ctx);
  for (size_t i = 1; i <= last; ++i) NNC_TRY(checkInputType(ctx, i, OperandType::INT32));
  if (hasLayout(ctx)) NNC_TRY(checkInputType(ctx, last + 1, OperandType::BOOL));
  NNC_TRY(checkOutputType(ctx, 0, t));
  NNC_TRY(checkRankIfKnown(ctx, 0, 4));
  if (ctx.hasInputValue(last)) NNC_TRY(checkActivation(intScalar(ctx, last), ctx, last));
  if (!isExplicit(ctx) && ctx.hasInputValue(1))
    NNC_TRY(checkPaddingScheme(intScalar(ctx, 1), ctx, 1));
  return Status::Ok();
}

hal::Result<PoolGeometry> poolGeometry(const OperationContext& ctx) {
  NNC_TRY(checkCounts(ctx, {7, 8, 10, 11}, 1));
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    if (!ctx.hasInputValue(i)) return hal::fail(inputName(ctx, i), ": has no value");
  NNC_TRY(checkRank(ctx, 0, 4));
  PoolGeometry g;
  int32_t scheme = 0;
  if (isExplicit(ctx)) {
    g.padLeft = intScalar(ctx, 1);
    g.padRight = intScalar(ctx, 2);
    g.padTop = intScalar(ctx, 3);
    g.padBottom = intScalar(ctx, 4);
    g.strideW = intScalar(ctx, 5);
    g.strideH = intScalar(ctx, 6);
    g.filterW = intScalar(ctx, 7);
    g.filterH = intScalar(ctx, 8);
  } else {
    scheme = intScalar(ctx, 1);
    NNC_TRY(checkPaddingScheme(scheme, ctx, 1));
    g.strideW = intScalar(ctx, 2);
    g.strideH = intScalar(ctx, 3);
    g.filterW = intScalar(ctx, 4);
    g.filterH = intScalar(ctx, 5);
  }
  const size_t act = activationIndex(ctx);
  g.activation = intScalar(ctx, act);
  NNC_TRY(checkActivation(g.activation, ctx, act));
  if (hasLayout(ctx)) g.nchw = boolScalar(ctx, act + 1);
  if (g.strideW <= 0 || g.strideH <= 0)
    return hal::fail("strides (w ", g.strideW, ", h ", g.strideH, ") must be > 0");
  if (g.filterW <= 0 || g.filterH <= 0)
    return hal::fail("filter size (w ", g.filterW, ", h ", g.filterH, ") must be > 0");

  const Shape& in = ctx.inputShape(0);
  const std::vector<uint32_t> d = toNhwcDims(in.dimensions, g.nchw);
  g.batches = d[0];
  g.inH = d[1];
  g.inW = d[2];
  g.channels = d[3];
  if (g.inH == 0 || g.inW == 0 || g.channels == 0)
    return hal::fail(inputName(ctx, 0), ": only the batch dimension may be 0, shape is ",
                     toString(in.dimensions));
  if (!isExplicit(ctx)) {
    explicitPadding(static_cast<int32_t>(g.inW), g.strideW, 1, g.filterW, scheme, false, &g.padLeft,
                    &g.padRight);
    explicitPadding(static_cast<int32_t>(g.inH), g.strideH, 1, g.filterH, scheme, false, &g.padTop,
                    &g.padBottom);
  }
  if (g.padLeft < 0 || g.padRight < 0 || g.padTop < 0 || g.padBottom < 0)
    return hal::fail("paddings (left ", g.padLeft, ", right ", g.padRight, ", top ", g.padTop,
                     ", bottom ", g.padBottom, ") must be >= 0");
  // Each window then keeps at least one input element.
  if (g.filterW <= g.padLeft || g.filterW <= g.padRight || g.filterH <= g.padTop ||
      g.filterH <= g.padBottom)
    return hal::fail("paddings (left ", g.padLeft, ", right ", g.padRight, ", top ", g.padTop,
                     ", bottom ", g.padBottom, ") must be smaller than the filter ", g.filterW, "x",
                     g.filterH, " (w x h)");
  const int64_t outW = convOutSize(g.inW, g.filterW, g.strideW, 1, g.padLeft, g.padRight);
  const int64_t outH = convOutSize(g.inH, g.filterH, g.strideH, 1, g.padTop, g.padBottom);
  if (outW <= 0 || outH <= 0)
    return hal::fail("input ", g.inW, "x", g.inH, " (w x h) with padding is smaller than the ",
                     g.filterW, "x", g.filterH, " filter: output would be ", outW, "x", outH);
  NNC_TRY(
      checkOutputSize(outH, outW,
                      {g.batches, static_cast<uint32_t>(std::min<int64_t>(outH, UINT32_MAX)),
                       static_cast<uint32_t>(std::min<int64_t>(outW, UINT32_MAX)), g.channels}));
  g.outW = static_cast<uint32_t>(outW);
  g.outH = static_cast<uint32_t>(outH);
  return g;
}

Status preparePool(OperationContext& ctx) {
  NNC_ASSIGN_OR_RETURN(auto g, poolGeometry(ctx));
  Shape out = ctx.outputShape(0);
  out.dimensions = fromNhwcDims(g.outputNhwcDims(), g.nchw);
  return ctx.setOutputShape(0, out);
}

}  // namespace nncosim::ops::conv
