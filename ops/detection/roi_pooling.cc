// ROI_POOLING: for each region of interest (rounded to feature-map cells), the maximum of
// each of outHeight x outWidth bins. Max pooling needs no requantization: quantized inputs
// are compared as stored.
#include <algorithm>
#include <cmath>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/detection/roi_grid.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

using Params = detection::RoiGrid;

constexpr size_t kLayout = 7;

Status validate(const OperationContext& ctx) { return detection::validateRoiOperands(ctx, 0); }

Status prepare(OperationContext& ctx) {
  auto p = detection::readRoiGrid(ctx, kLayout);
  NNC_TRY(p);
  return detection::setRoiOutputShape(ctx, *p);
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
    NNC_TRY(detection::checkRoiBatchIndex(p, r, batch));
    NNC_TRY(detection::checkImageRoi(p, r, roi));
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
Result<std::vector<T>> run(OperationContext& ctx, const Params& p, const T* in, T emptyValue) {
  const std::vector<float> rois = detection::inputAsFloat(ctx, detection::kRoiRegions);
  return detection::runRoiKernelNhwc<T>(ctx, p, in, [&](const T* i, T* o) {
    return roiPooling<T>(p, i, emptyValue, rois.data(),
                         ctx.input<int32_t>(detection::kRoiBatchSplit), o);
  });
}

template <typename T>
Status runQuant(OperationContext& ctx, const Params& p) {
  // An empty bin yields the zero point (real 0), as in the reference.
  auto out = run<T>(ctx, p, ctx.input<T>(detection::kRoiInput),
                    static_cast<T>(ctx.inputShape(detection::kRoiInput).zeroPoint));
  NNC_TRY(out);
  std::memcpy(ctx.outputBytes(0), out->data(), out->size() * sizeof(T));
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  auto p = detection::readRoiGrid(ctx, kLayout);
  NNC_TRY(p);
  if (p->numRois == 0) return Status::Ok();
  const OperandType t = ctx.inputType(detection::kRoiInput);
  if (t == OperandType::TENSOR_QUANT8_ASYMM) return runQuant<uint8_t>(ctx, *p);
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return runQuant<int8_t>(ctx, *p);
  const std::vector<float> in = detection::inputAsFloat(ctx, detection::kRoiInput);
  auto out = run<float>(ctx, *p, in.data(), 0.0f);
  NNC_TRY(out);
  detection::storeOutput(ctx, 0, *out);
  return Status::Ok();
}

}  // namespace

void registerRoiPooling(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::ROI_POOLING, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
