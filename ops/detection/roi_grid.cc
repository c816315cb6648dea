#include "ops/detection/roi_grid.h"

#include "ops/detection/detection_util.h"

namespace nncosim::ops::detection {

std::vector<uint32_t> RoiGrid::outNhwcDims() const {
  return {numRois, static_cast<uint32_t>(outHeight), static_cast<uint32_t>(outWidth), depth};
}

Status validateRoiOperands(const OperationContext& ctx, size_t extraInt32Scalars) {
  NNC_TRY(checkCounts(ctx, 8 + extraInt32Scalars, 1));
  const OperandType t = ctx.inputType(kRoiInput);
  using T = OperandType;
  std::vector<T> types;
  if (t == T::TENSOR_FLOAT32 || t == T::TENSOR_FLOAT16) {
    const T s = t == T::TENSOR_FLOAT32 ? T::FLOAT32 : T::FLOAT16;
    types = {t, t, T::TENSOR_INT32, T::INT32, T::INT32, s, s};
  } else if (t == T::TENSOR_QUANT8_ASYMM || t == T::TENSOR_QUANT8_ASYMM_SIGNED) {
    types = {t,         T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::INT32, T::INT32, T::FLOAT32,
             T::FLOAT32};
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  types.insert(types.end(), extraInt32Scalars, T::INT32);
  types.push_back(T::BOOL);
  NNC_TRY(checkInputTypes(ctx, types));
  NNC_TRY(checkOutputTypes(ctx, {t}));
  NNC_TRY(checkInputRank(ctx, kRoiInput, 4));
  return checkInputRank(ctx, kRoiRegions, 2);
}

Result<RoiGrid> readRoiGrid(const OperationContext& ctx, size_t layoutIndex) {
  NNC_TRY(checkInputRank(ctx, kRoiInput, 4));
  NNC_TRY(checkInputRank(ctx, kRoiRegions, 2));
  NNC_TRY(checkInputRank(ctx, kRoiBatchSplit, 1));
  RoiGrid g;
  g.nchw = boolScalar(ctx, layoutIndex);
  const Shape& in = ctx.inputShape(kRoiInput);
  const Shape& rois = ctx.inputShape(kRoiRegions);
  g.batches = in.dim(0);
  g.inHeight = in.dim(g.nchw ? 2 : 1);
  g.inWidth = in.dim(g.nchw ? 3 : 2);
  g.depth = in.dim(g.nchw ? 1 : 3);
  g.numRois = rois.dim(0);
  if (rois.dim(1) != 4)
    return hal::fail("input 1: expected [numRois, 4], found ", toString(rois.dimensions));
  if (ctx.inputShape(kRoiBatchSplit).dim(0) != g.numRois)
    return hal::fail("input 2: expected ", g.numRois, " batch indexes, found ",
                     ctx.inputShape(kRoiBatchSplit).dim(0));
  g.outHeight = ctx.scalar<int32_t>(kRoiOutHeight);
  g.outWidth = ctx.scalar<int32_t>(kRoiOutWidth);
  g.heightStride = floatScalar(ctx, kRoiHeightStride);
  g.widthStride = floatScalar(ctx, kRoiWidthStride);
  if (g.outHeight <= 0 || g.outWidth <= 0)
    return hal::fail("inputs 3/4: output size ", g.outHeight, "x", g.outWidth, " must be positive");
  if (!(g.heightStride > 0) || !(g.widthStride > 0))
    return hal::fail("inputs 5/6: strides ", g.heightStride, ", ", g.widthStride,
                     " must be positive");
  if (rois.type == OperandType::TENSOR_QUANT16_ASYMM &&
      (rois.scale != 0.125f || rois.zeroPoint != 0))
    return hal::fail("input 1: quantization must be scale 0.125, zeroPoint 0; found scale ",
                     rois.scale, ", zeroPoint ", rois.zeroPoint);
  return g;
}

Status setRoiOutputShape(OperationContext& ctx, const RoiGrid& g) {
  Shape s = ctx.outputShape(0);
  const uint32_t oh = static_cast<uint32_t>(g.outHeight), ow = static_cast<uint32_t>(g.outWidth);
  s.dimensions = g.nchw ? std::vector<uint32_t>{g.numRois, g.depth, oh, ow}
                        : std::vector<uint32_t>{g.numRois, oh, ow, g.depth};
  return ctx.setOutputShape(0, s);
}

Status checkRoiBatchIndex(const RoiGrid& g, uint32_t r, int32_t batch) {
  if (batch < 0 || static_cast<uint32_t>(batch) >= g.batches)
    return hal::fail("input 2: roi ", r, " has batch index ", batch, ", expected [0, ", g.batches,
                     ")");
  return Status::Ok();
}

Status checkImageRoi(const RoiGrid& g, uint32_t r, const float* roi) {
  const float heightScale = 1.0f / g.heightStride;
  const float widthScale = 1.0f / g.widthStride;
  if (!(roi[0] >= 0 && roi[1] >= 0 && roi[2] >= 0 && roi[3] >= 0 &&
        roi[0] * widthScale <= g.inWidth && roi[1] * heightScale <= g.inHeight &&
        roi[2] * widthScale <= g.inWidth && roi[3] * heightScale <= g.inHeight &&
        roi[0] <= roi[2] && roi[1] <= roi[3]))
    return hal::fail("input 1: roi ", r, " [", roi[0], ", ", roi[1], ", ", roi[2], ", ", roi[3],
                     "] is malformed or outside the ", g.inHeight, "x", g.inWidth, " feature map");
  return Status::Ok();
}

}  // namespace nncosim::ops::detection
