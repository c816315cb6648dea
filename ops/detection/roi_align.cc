// ROI_ALIGN: for each region of interest, an outHeight x outWidth grid of bins, each the
// average of bilinearly interpolated sampling points. Float variants compute in float;
// quantized variants use NNAPI's integer path (weights quantized to 1/255, int32
// accumulation, one requantization).
#include <algorithm>
#include <cmath>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/detection/roi_grid.h"
#include "ops/quant/fixed_point.h"
#include "ops/quant/quant_params.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kHeightRatio = 7, kWidthRatio = 8, kLayout = 9;

Status validate(const OperationContext& ctx) { return detection::validateRoiOperands(ctx, 2); }

// The shared grid plus the sampling points per bin (0: adaptive).
struct Params : detection::RoiGrid {
  int32_t heightRatio, widthRatio;
};

Result<Params> readParams(const OperationContext& ctx) {
  auto grid = detection::readRoiGrid(ctx, kLayout);
  NNC_TRY(grid);
  Params p{*grid, 0, 0};
  if (p.batches == 0 || p.inHeight == 0 || p.inWidth == 0 || p.depth == 0)
    return hal::fail("input 0: every dimension must be positive, found ",
                     toString(ctx.inputShape(detection::kRoiInput).dimensions));
  p.heightRatio = ctx.scalar<int32_t>(kHeightRatio);
  p.widthRatio = ctx.scalar<int32_t>(kWidthRatio);
  if (p.heightRatio < 0 || p.widthRatio < 0)
    return hal::fail("inputs 7/8: sampling ratios ", p.heightRatio, ", ", p.widthRatio,
                     " must be >= 0");
  return p;
}

Status prepare(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  return detection::setRoiOutputShape(ctx, *p);
}

// The geometry of one region in feature-map coordinates.
struct Region {
  float wStart, hStart, wStep, hStep, wBin, hBin;
  uint32_t wRatio, hRatio;
};

Region regionGeometry(const Params& p, float x1, float y1, float x2, float y2) {
  Region r;
  r.wStart = x1;
  r.hStart = y1;
  const float roiWidth = std::max(x2 - x1, 1.0f);
  const float roiHeight = std::max(y2 - y1, 1.0f);
  r.wStep = roiWidth / static_cast<float>(p.outWidth);
  r.hStep = roiHeight / static_cast<float>(p.outHeight);
  // Ratio 0: adaptive, ceil(bin size).
  r.wRatio = p.widthRatio > 0 ? static_cast<uint32_t>(p.widthRatio)
                              : static_cast<uint32_t>(std::ceil(r.wStep));
  r.hRatio = p.heightRatio > 0 ? static_cast<uint32_t>(p.heightRatio)
                               : static_cast<uint32_t>(std::ceil(r.hStep));
  r.wBin = r.wStep / static_cast<float>(r.wRatio);
  r.hBin = r.hStep / static_cast<float>(r.hRatio);
  return r;
}

// Bounds the work per bin (and keeps the int32 sample count of the quantized path exact).
Status checkSamplingPoints(const Region& g, uint32_t roi) {
  if (uint64_t{g.wRatio} * g.hRatio > (uint64_t{1} << 20))
    return hal::fail("inputs 7/8: roi ", roi, " would take ", g.hRatio, " x ", g.wRatio,
                     " sampling points per bin, more than 2^20");
  return Status::Ok();
}

// Bilinear sampling point: the four corner offsets (in elements, without the channel) and
// their weights.
struct Sample {
  uint32_t offsets[4];
  float weights[4];
};

Sample samplePoint(float x, float y, uint32_t inHeight, uint32_t inWidth, uint32_t depth) {
  uint32_t x1 = static_cast<uint32_t>(std::floor(x)), y1 = static_cast<uint32_t>(std::floor(y));
  uint32_t x2 = x1 + 1, y2 = y1 + 1;
  float dx1 = x - static_cast<float>(x1);
  float dy1 = y - static_cast<float>(y1);
  // Points past the last row/column use it alone.
  if (x1 >= inWidth - 1) {
    x1 = x2 = inWidth - 1;
    dx1 = 0;
  }
  if (y1 >= inHeight - 1) {
    y1 = y2 = inHeight - 1;
    dy1 = 0;
  }
  const float dx2 = 1.0f - dx1, dy2 = 1.0f - dy1;
  Sample s;
  s.weights[0] = dx2 * dy2;
  s.weights[1] = dx1 * dy2;
  s.weights[2] = dx2 * dy1;
  s.weights[3] = dx1 * dy1;
  s.offsets[0] = (y1 * inWidth + x1) * depth;
  s.offsets[1] = (y1 * inWidth + x2) * depth;
  s.offsets[2] = (y2 * inWidth + x1) * depth;
  s.offsets[3] = (y2 * inWidth + x2) * depth;
  return s;
}

// Float path over NHWC data; rois in image coordinates.
Status roiAlignFloat(const Params& p, const float* in, const float* rois, const int32_t* batchIds,
                     float* out) {
  const float heightScale = 1.0f / p.heightStride;
  const float widthScale = 1.0f / p.widthStride;
  const size_t batchSize = static_cast<size_t>(p.inHeight) * p.inWidth * p.depth;
  float* o = out;
  for (uint32_t r = 0; r < p.numRois; ++r) {
    const float* roi = rois + 4 * r;
    const int32_t batch = batchIds[r];
    NNC_TRY(detection::checkRoiBatchIndex(p, r, batch));
    NNC_TRY(detection::checkImageRoi(p, r, roi));
    const Region g = regionGeometry(p, roi[0] * widthScale, roi[1] * heightScale,
                                    roi[2] * widthScale, roi[3] * heightScale);
    NNC_TRY(checkSamplingPoints(g, r));
    const float* base = in + static_cast<size_t>(batch) * batchSize;
    const float count = static_cast<float>(g.wRatio * g.hRatio);
    for (int32_t i = 0; i < p.outHeight; ++i) {
      for (int32_t j = 0; j < p.outWidth; ++j) {
        const float wStart = g.wStep * j + g.wStart;
        const float hStart = g.hStep * i + g.hStart;
        std::fill(o, o + p.depth, 0.0f);
        for (uint32_t yi = 0; yi < g.hRatio; ++yi) {
          for (uint32_t xi = 0; xi < g.wRatio; ++xi) {
            const float y = hStart + g.hBin / 2 + g.hBin * yi;
            const float x = wStart + g.wBin / 2 + g.wBin * xi;
            const Sample s = samplePoint(x, y, p.inHeight, p.inWidth, p.depth);
            for (uint32_t k = 0; k < p.depth; ++k) {
              float v = 0.0f;
              for (int c = 0; c < 4; ++c) v += s.weights[c] * base[s.offsets[c] + k];
              o[k] += v;
            }
          }
        }
        for (uint32_t k = 0; k < p.depth; ++k) o[k] /= count;
        o += p.depth;
      }
    }
  }
  return Status::Ok();
}

// Quantized path over NHWC data; rois are QUANT16_ASYMM with scale 0.125.
template <typename T>
Status roiAlignQuant(const Params& p, const T* in, const Shape& inShape, const uint16_t* rois,
                     const int32_t* batchIds, const Shape& outShape, T* out) {
  constexpr float kWeightScale = 1.0f / 255.0f;
  const float heightScale = 1.0f / p.heightStride;
  const float widthScale = 1.0f / p.widthStride;
  const size_t batchSize = static_cast<size_t>(p.inHeight) * p.inWidth * p.depth;
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  std::vector<int32_t> acc(p.depth);
  T* o = out;
  for (uint32_t r = 0; r < p.numRois; ++r) {
    const uint16_t* roi = rois + 4 * r;
    const int32_t batch = batchIds[r];
    const float x1 = static_cast<float>(roi[0]) * widthScale * 0.125f;
    const float y1 = static_cast<float>(roi[1]) * heightScale * 0.125f;
    const float x2 = static_cast<float>(roi[2]) * widthScale * 0.125f;
    const float y2 = static_cast<float>(roi[3]) * heightScale * 0.125f;
    NNC_TRY(detection::checkRoiBatchIndex(p, r, batch));
    if (!(x1 <= p.inWidth && y1 <= p.inHeight && x2 <= p.inWidth && y2 <= p.inHeight && x1 <= x2 &&
          y1 <= y2))
      return hal::fail("input 1: roi ", r, " [", x1, ", ", y1, ", ", x2, ", ", y2,
                       "] (feature-map units) is malformed or outside the ", p.inHeight, "x",
                       p.inWidth, " feature map");
    const Region g = regionGeometry(p, x1, y1, x2, y2);
    NNC_TRY(checkSamplingPoints(g, r));
    const int32_t numPoints = static_cast<int32_t>(g.wRatio * g.hRatio);
    // Computed in float, as the reference does, then widened.
    const float realMultiplier = inShape.scale * kWeightScale / outShape.scale / numPoints;
    auto qm = quant::quantizeMultiplierSmallerThanOne(realMultiplier);
    if (!qm.ok()) return hal::fail("requantization: ", qm.error());
    const T* base = in + static_cast<size_t>(batch) * batchSize;
    for (int32_t i = 0; i < p.outHeight; ++i) {
      for (int32_t j = 0; j < p.outWidth; ++j) {
        const float wStart = g.wStep * j + g.wStart;
        const float hStart = g.hStep * i + g.hStart;
        std::fill(acc.begin(), acc.end(), 0);
        for (uint32_t yi = 0; yi < g.hRatio; ++yi) {
          for (uint32_t xi = 0; xi < g.wRatio; ++xi) {
            const float y = hStart + g.hBin / 2 + g.hBin * yi;
            const float x = wStart + g.wBin / 2 + g.wBin * xi;
            const Sample s = samplePoint(x, y, p.inHeight, p.inWidth, p.depth);
            int32_t wq[4];
            for (int c = 0; c < 4; ++c)
              wq[c] = static_cast<int32_t>(std::round(s.weights[c] / kWeightScale));
            for (uint32_t k = 0; k < p.depth; ++k) {
              int32_t v = 0;
              for (int c = 0; c < 4; ++c)
                v += wq[c] * (static_cast<int32_t>(base[s.offsets[c] + k]) - inShape.zeroPoint);
              acc[k] += v;
            }
          }
        }
        for (uint32_t k = 0; k < p.depth; ++k) {
          const int32_t q =
              quant::multiplyByQuantizedMultiplier(acc[k], qm->multiplier, qm->shift) +
              outShape.zeroPoint;
          o[k] = static_cast<T>(quant::clamp(q, lo, hi));
        }
        o += p.depth;
      }
    }
  }
  return Status::Ok();
}

template <typename T>
Status runQuant(OperationContext& ctx, const Params& p) {
  const Shape& inShape = ctx.inputShape(detection::kRoiInput);
  auto out = detection::runRoiKernelNhwc<T>(
      ctx, p, ctx.input<T>(detection::kRoiInput), [&](const T* in, T* o) {
        return roiAlignQuant<T>(p, in, inShape, ctx.input<uint16_t>(detection::kRoiRegions),
                                ctx.input<int32_t>(detection::kRoiBatchSplit), ctx.outputShape(0),
                                o);
      });
  NNC_TRY(out);
  std::memcpy(ctx.outputBytes(0), out->data(), out->size() * sizeof(T));
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  if (p->numRois == 0) return Status::Ok();
  const OperandType t = ctx.inputType(detection::kRoiInput);
  if (t == OperandType::TENSOR_QUANT8_ASYMM) return runQuant<uint8_t>(ctx, *p);
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) return runQuant<int8_t>(ctx, *p);

  const std::vector<float> in = detection::inputAsFloat(ctx, detection::kRoiInput);
  const std::vector<float> rois = detection::inputAsFloat(ctx, detection::kRoiRegions);
  auto out = detection::runRoiKernelNhwc<float>(ctx, *p, in.data(), [&](const float* i, float* o) {
    return roiAlignFloat(*p, i, rois.data(), ctx.input<int32_t>(detection::kRoiBatchSplit), o);
  });
  NNC_TRY(out);
  detection::storeOutput(ctx, 0, *out);
  return Status::Ok();
}

}  // namespace

void registerRoiAlign(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::ROI_ALIGN, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
