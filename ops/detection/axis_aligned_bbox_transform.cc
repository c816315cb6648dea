// AXIS_ALIGNED_BBOX_TRANSFORM: applies per-class box deltas to regions of interest and
// clips the results to their images. Quantized variants (QUANT16_ASYMM boxes with scale
// 0.125) compute in float as NNAPI does.
#include "ops/detection/bbox.h"
#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kRois = 0, kDeltas = 1, kBatches = 2, kImageInfo = 3;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 4, 1));
  using T = OperandType;
  const T t = ctx.inputType(kRois);
  if (t == T::TENSOR_FLOAT32 || t == T::TENSOR_FLOAT16) {
    NNC_TRY(detection::checkInputTypes(ctx, {t, t, T::TENSOR_INT32, t}));
  } else if (t == T::TENSOR_QUANT16_ASYMM) {
    const T d = ctx.inputType(kDeltas);
    if (d != T::TENSOR_QUANT8_ASYMM && d != T::TENSOR_QUANT8_ASYMM_SIGNED)
      return hal::fail("input 1: expected TENSOR_QUANT8_ASYMM(_SIGNED) deltas, found ",
                       hal::toString(d));
    NNC_TRY(detection::checkInputTypes(ctx, {t, d, T::TENSOR_INT32, t}));
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  NNC_TRY(detection::checkOutputTypes(ctx, {t}));
  NNC_TRY(detection::checkInputRank(ctx, kRois, 2));
  NNC_TRY(detection::checkInputRank(ctx, kDeltas, 2));
  NNC_TRY(detection::checkInputRank(ctx, kBatches, 1));
  return detection::checkInputRank(ctx, kImageInfo, 2);
}

struct Params {
  uint32_t numRois, numClasses, numBatches;
};

Result<Params> readParams(const OperationContext& ctx) {
  for (size_t i : {kRois, kDeltas, kImageInfo}) NNC_TRY(detection::checkInputRank(ctx, i, 2));
  NNC_TRY(detection::checkInputRank(ctx, kBatches, 1));
  const Shape& rois = ctx.inputShape(kRois);
  const Shape& deltas = ctx.inputShape(kDeltas);
  const Shape& info = ctx.inputShape(kImageInfo);
  Params p;
  p.numRois = rois.dim(0);
  p.numClasses = deltas.dim(1) / 4;
  p.numBatches = info.dim(0);
  if (rois.dim(1) != 4)
    return hal::fail("input 0: expected [numRois, 4], found ", toString(rois.dimensions));
  if (p.numClasses == 0 || deltas.dim(1) != 4 * p.numClasses || deltas.dim(0) != p.numRois)
    return hal::fail("input 1: expected [", p.numRois, ", 4 * numClasses] (numClasses > 0), found ",
                     toString(deltas.dimensions));
  if (ctx.inputShape(kBatches).dim(0) != p.numRois)
    return hal::fail("input 2: expected ", p.numRois, " batch indexes, found ",
                     ctx.inputShape(kBatches).dim(0));
  if (p.numBatches == 0 || info.dim(1) != 2)
    return hal::fail("input 3: expected [numBatches > 0, 2], found ", toString(info.dimensions));
  if (rois.type == OperandType::TENSOR_QUANT16_ASYMM) {
    for (size_t i : {kRois, kImageInfo}) {
      const Shape& s = ctx.inputShape(i);
      if (s.scale != 0.125f || s.zeroPoint != 0)
        return hal::fail("input ", i,
                         ": quantization must be scale 0.125, zeroPoint 0; found scale ", s.scale,
                         ", zeroPoint ", s.zeroPoint);
    }
  }
  return p;
}

Status prepare(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  Shape s = ctx.outputShape(0);
  s.dimensions = {p->numRois, p->numClasses * 4};
  return ctx.setOutputShape(0, s);
}

Status execute(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  if (p->numRois == 0) return Status::Ok();
  const std::vector<float> rois = detection::inputAsFloat(ctx, kRois);
  const std::vector<float> deltas = detection::inputAsFloat(ctx, kDeltas);
  const std::vector<float> info = detection::inputAsFloat(ctx, kImageInfo);
  std::vector<float> out(static_cast<size_t>(p->numRois) * p->numClasses * 4);
  Status st = detection::bboxTransform(rois.data(), p->numRois, deltas.data(), p->numClasses,
                                       ctx.input<int32_t>(kBatches), info.data(), p->numBatches,
                                       out.data());
  if (!st.ok()) return hal::fail("inputs 0/2: ", st.error());
  detection::storeOutput(ctx, 0, out);
  return Status::Ok();
}

}  // namespace

void registerAxisAlignedBboxTransform(OperationTable& t) {
  t.add(
      OperationDef{hal::OperationType::AXIS_ALIGNED_BBOX_TRANSFORM, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
