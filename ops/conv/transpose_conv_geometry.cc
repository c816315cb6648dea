#include "ops/conv/transpose_conv_geometry.h"

#include <algorithm>
#include <climits>

#include "ops/conv/conv_common.h"

namespace nncosim::ops::conv {

hal::Result<TransposeConvGeometry> transposeConvGeometry(
    const OperationContext& ctx, const std::vector<uint32_t>* declaredOutput) {
  NNC_TRY(checkCounts(ctx, {9, 11}, 1));
  // A runtime output shape (implicit form, input 3) may stand in by the declared output's
  // dimensions when the caller gives them.
  const bool shapeFromOutput = !isExplicitTransposeConv(ctx) && !ctx.hasInputValue(3) &&
                               declaredOutput && declaredOutput->size() == 4;
  for (size_t i = 3; i < ctx.numInputs(); ++i)
    if (!ctx.hasInputValue(i) && !(i == 3 && shapeFromOutput))
      return hal::fail(inputName(ctx, i), ": has no value");
  NNC_TRY(checkRank(ctx, 0, 4));
  NNC_TRY(checkRank(ctx, 1, 4));
  NNC_TRY(checkRank(ctx, 2, 1));

  TransposeConvGeometry g;
  g.nchw = boolScalar(ctx, transposeConvLayoutIndex(ctx));
  g.activation = intScalar(ctx, transposeConvActivationIndex(ctx));
  NNC_TRY(checkActivation(g.activation, ctx, transposeConvActivationIndex(ctx)));
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

  if (isExplicitTransposeConv(ctx)) {
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
    int32_t declared[4] = {0, 0, 0, 0};
    if (shapeFromOutput)
      for (size_t k = 0; k < 4; ++k) {
        if ((*declaredOutput)[k] == 0 || (*declaredOutput)[k] > INT32_MAX)
          return hal::fail(inputName(ctx, 3), ": has no value and the output's dimensions ",
                           toString(*declaredOutput), " are not all known");
        declared[k] = static_cast<int32_t>((*declaredOutput)[k]);
      }
    const int32_t* shape = shapeFromOutput ? declared : ctx.input<int32_t>(3);
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

}  // namespace nncosim::ops::conv
