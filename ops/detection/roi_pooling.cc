// ROI_POOLING: for each region of interest (rounded to feature-map cells), the maximum of
// each of outHeight x outWidth bins. Max pooling needs no requantization: quantized inputs
// are compared as stored.
#include <algorithm>
#include <cmath>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kInput = 0, kRois = 1, kBatchSplit = 2, kOutHeight = 3, kOutWidth = 4,
                 kHeightStride = 5, kWidthStride = 6, kLayout = 7;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 8, 1));
  const OperandType t = ctx.inputType(kInput);
  using T = OperandType;
  if (t == T::TENSOR_FLOAT32 || t == T::TENSOR_FLOAT16) {
    const T s = t == T::TENSOR_FLOAT32 ? T::FLOAT32 : T::FLOAT16;
    NNC_TRY(detection::checkInputTypes(ctx,
                                       {t, t, T::TENSOR_INT32, T::INT32, T::INT32, s, s, T::BOOL}));
  } else if (t == T::TENSOR_QUANT8_ASYMM || t == T::TENSOR_QUANT8_ASYMM_SIGNED) {
    NNC_TRY(detection::checkInputTypes(ctx, {t, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::INT32,
                                             T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL}));
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  NNC_TRY(detection::checkOutputTypes(ctx, {t}));
  NNC_TRY(detection::checkInputRank(ctx, kInput, 4));
  return detection::checkInputRank(ctx, kRois, 2);
}

struct Params {
  bool nchw;
  uint32_t batches, inHeight, inWidth, depth, numRois;
  int32_t outHeight, outWidth;
  float heightStride, widthStride;
};

Result<Params> readParams(const OperationContext& ctx) {
  NNC_TRY(detection::checkInputRank(ctx, kInput, 4));
  NNC_TRY(detection::checkInputRank(ctx, kRois, 2));
  NNC_TRY(detection::checkInputRank(ctx, kBatchSplit, 1));
  Params p;
  p.nchw = detection::boolScalar(ctx, kLayout);
  const Shape& in = ctx.inputShape(kInput);
  const Shape& rois = ctx.inputShape(kRois);
  p.batches = in.dim(0);
  p.inHeight = in.dim(p.nchw ? 2 : 1);
  p.inWidth = in.dim(p.nchw ? 3 : 2);
  p.depth = in.dim(p.nchw ? 1 : 3);
  p.numRois = rois.dim(0);
  if (rois.dim(1) != 4)
    return hal::fail("input 1: expected [numRois, 4], found ", toString(rois.dimensions));
  if (ctx.inputShape(kBatchSplit).dim(0) != p.numRois)
    return hal::fail("input 2: expected ", p.numRois, " batch indexes, found ",
                     ctx.inputShape(kBatchSplit).dim(0));
  p.outHeight = ctx.scalar<int32_t>(kOutHeight);
  p.outWidth = ctx.scalar<int32_t>(kOutWidth);
  p.heightStride = detection::floatScalar(ctx, kHeightStride);
  p.widthStride = detection::floatScalar(ctx, kWidthStride);
  if (p.outHeight <= 0 || p.outWidth <= 0)
    return hal::fail("inputs 3/4: output size ", p.outHeight, "x", p.outWidth, " must be positive");
  if (!(p.heightStride > 0) || !(p.widthStride > 0))
    return hal::fail("inputs 5/6: strides ", p.heightStride, ", ", p.widthStride,
                     " must be positive");
  if (rois.type == OperandType::TENSOR_QUANT16_ASYMM &&
      (rois.scale != 0.125f || rois.zeroPoint != 0))
    return hal::fail("input 1: quantization must be scale 0.125, zeroPoint 0; found scale ",
                     rois.scale, ", zeroPoint ", rois.zeroPoint);
  return p;
}

Status prepare(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  Shape s = ctx.outputShape(0);
  const uint32_t oh = static_cast<uint32_t>(p->outHeight), ow = static_cast<uint32_t>(p->outWidth);
  s.dimensions = p->nchw ? std::vector<uint32_t>{p->numRois, p->depth, oh, ow}
                         : std::vector<uint32_t>{p->numRois, oh, ow, p->depth};
  return ctx.setOutputShape(0, s);
}

// NHWC kernel; T is the stored element type, rois already in float image coordinates.
template <typename T>
Status roiPooling(const Params& p, const T* in, T emptyValue, const float* rois,
                  const int32_t* batchIds, T* out) {
  const float heightScale = 1.0f / p.heightStride;
  const float widthScale = 1.0f / p.widthStride;
  const size_t batchSize = static_cast<size_t>(p.inHeight) * p.inWidth * p.depth;
  T* o = out;
  for (uint32_t r = 0; r < p.numRois; ++r) {
    const float* roi = rois + 4 * r;
    const int32_t batch = batchIds[r];
    if (batch < 0 || static_cast<uint32_t>(batch) >= p.batches)
      return hal::fail("input 2: roi ", r, " has batch index ", batch, ", expected [0, ", p.batches,
                       ")");
    if (!(roi[0] >= 0 && roi[1] >= 0 && roi[2] >= 0 && roi[3] >= 0 &&
          roi[0] * widthScale <= p.inWidth && roi[1] * heightScale <= p.inHeight &&
          roi[2] * widthScale <= p.inWidth && roi[3] * heightScale <= p.inHeight &&
          roi[0] <= roi[2] && roi[1] <= roi[3]))
      return hal::fail("input 1: roi ", r, " [", roi[0], ", ", roi[1], ", ", roi[2], ", ", roi[3],
                       "] is malformed or outside the ", p.inHeight, "x", p.inWidth,
                       " feature map");
    const auto x1 = static_cast<int32_t>(std::round(roi[0] * widthScale));
    const auto y1 = static_cast<int32_t>(std::round(roi[1] * heightScale));
    const auto x2 = static_cast<int32_t>(std::round(roi[2] * widthScale));
    const auto y2 = static_cast<int32_t>(std::round(roi[3] * heightScale));
    // Regions under one cell are forced to one cell.
    const float roiWidth = static_cast<float>(std::max(x2 - x1 + 1, 1));
    const float roiHeight = static_cast<float>(std::max(y2 - y1 + 1, 1));
    const float wStep = roiWidth / static_cast<float>(p.outWidth);
    const float hStep = roiHeight / static_cast<float>(p.outHeight);
    const T* base = in + static_cast<size_t>(batch) * batchSize;
    for (int32_t i = 0; i < p.outHeight; ++i) {
      for (int32_t j = 0; j < p.outWidth; ++j) {
        // [floor(start), ceil(end)), clipped to the map.
        const uint32_t wStart =
            std::min(static_cast<uint32_t>(std::floor(wStep * j + x1)), p.inWidth);
        const uint32_t wEnd =
            std::min(static_cast<uint32_t>(std::ceil(wStep * (j + 1) + x1)), p.inWidth);
        const uint32_t hStart =
            std::min(static_cast<uint32_t>(std::floor(hStep * i + y1)), p.inHeight);
        const uint32_t hEnd =
            std::min(static_cast<uint32_t>(std::ceil(hStep * (i + 1) + y1)), p.inHeight);
        for (uint32_t k = 0; k < p.depth; ++k) {
          T best = emptyValue;
          bool first = true;
          for (uint32_t h = hStart; h < hEnd; ++h) {
            for (uint32_t w = wStart; w < wEnd; ++w) {
              const T v = base[(static_cast<size_t>(h) * p.inWidth + w) * p.depth + k];
              if (first || v > best) {
                best = v;
                first = false;
              }
            }
          }
          o[k] = best;
        }
        o += p.depth;
      }
    }
  }
  return Status::Ok();
}

template <typename T>
Status run(OperationContext& ctx, const Params& p, const T* in, T emptyValue, std::vector<T>* out) {
  std::vector<T> inNhwc;
  if (p.nchw) {
    inNhwc = detection::nchwToNhwc(in, ctx.inputShape(kInput).dimensions);
    in = inNhwc.data();
  }
  const std::vector<float> rois = detection::inputAsFloat(ctx, kRois);
  out->resize(static_cast<size_t>(ctx.outputShape(0).elements()));
  NNC_TRY(
      roiPooling<T>(p, in, emptyValue, rois.data(), ctx.input<int32_t>(kBatchSplit), out->data()));
  if (p.nchw)
    *out = detection::nhwcToNchw(out->data(), {p.numRois, static_cast<uint32_t>(p.outHeight),
                                               static_cast<uint32_t>(p.outWidth), p.depth});
  return Status::Ok();
}

template <typename T>
Status runQuant(OperationContext& ctx, const Params& p) {
  std::vector<T> out;
  // An empty bin yields the zero point (real 0), as in the reference.
  NNC_TRY(
      run<T>(ctx, p, ctx.input<T>(kInput), static_cast<T>(ctx.inputShape(kInput).zeroPoint), &out));
  std::memcpy(ctx.outputBytes(0), out.data(), out.size() * sizeof(T));
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  if (p->numRois == 0) return Status::Ok();
  const OperandType t = ctx.inputType(kInput);
  if (t == OperandType::TENSOR_QUANT8_ASYMM) return runQuant<uint8_t>(ctx, *p);
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return runQuant<int8_t>(ctx, *p);
  const std::vector<float> in = detection::inputAsFloat(ctx, kInput);
  std::vector<float> out;
  NNC_TRY(run<float>(ctx, *p, in.data(), 0.0f, &out));
  detection::storeOutput(ctx, 0, out);
  return Status::Ok();
}

}  // namespace

void registerRoiPooling(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::ROI_POOLING, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
