// HEATMAP_MAX_KEYPOINT: for each box and keypoint, the heatmap maximum refined to
// sub-pixel precision by a quadratic (2nd order Taylor) fit on its 3x3 neighbourhood, and
// mapped into the box. Quantized variants compute in float (as NNAPI does).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kHeatmap = 0, kBoxes = 1, kLayout = 2;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 3, 2));
  const OperandType t = ctx.inputType(kHeatmap);
  using T = OperandType;
  if (t == T::TENSOR_FLOAT32 || t == T::TENSOR_FLOAT16) {
    NNC_TRY(detection::checkInputTypes(ctx, {t, t, T::BOOL}));
    NNC_TRY(detection::checkOutputTypes(ctx, {t, t}));
  } else if (t == T::TENSOR_QUANT8_ASYMM || t == T::TENSOR_QUANT8_ASYMM_SIGNED) {
    NNC_TRY(detection::checkInputTypes(ctx, {t, T::TENSOR_QUANT16_ASYMM, T::BOOL}));
    NNC_TRY(detection::checkOutputTypes(ctx, {t, T::TENSOR_QUANT16_ASYMM}));
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  NNC_TRY(detection::checkInputRank(ctx, kHeatmap, 4));
  return detection::checkInputRank(ctx, kBoxes, 2);
}

struct Params {
  bool nchw;
  uint32_t numBoxes, size, numKeypoints;
};

Result<Params> readParams(const OperationContext& ctx) {
  NNC_TRY(detection::checkInputRank(ctx, kHeatmap, 4));
  NNC_TRY(detection::checkInputRank(ctx, kBoxes, 2));
  const Shape& hm = ctx.inputShape(kHeatmap);
  const Shape& boxes = ctx.inputShape(kBoxes);
  Params p;
  p.nchw = detection::boolScalar(ctx, kLayout);
  p.numBoxes = hm.dim(0);
  p.size = hm.dim(2);
  p.numKeypoints = hm.dim(p.nchw ? 1 : 3);
  if (hm.dim(p.nchw ? 3 : 1) != p.size)
    return hal::fail("input 0: heatmaps must be square, found ", toString(hm.dimensions));
  if (p.size < 2) return hal::fail("input 0: heatmap size ", p.size, " must be at least 2");
  if (boxes.dim(0) != p.numBoxes || boxes.dim(1) != 4)
    return hal::fail("input 1: expected [", p.numBoxes, ", 4], found ", toString(boxes.dimensions));
  if (boxes.type == OperandType::TENSOR_QUANT16_ASYMM &&
      (boxes.scale != 0.125f || boxes.zeroPoint != 0))
    return hal::fail("input 1: quantization must be scale 0.125, zeroPoint 0; found scale ",
                     boxes.scale, ", zeroPoint ", boxes.zeroPoint);
  return p;
}

Status prepare(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  Shape score = ctx.outputShape(0);
  score.dimensions = {p->numBoxes, p->numKeypoints};
  NNC_TRY(ctx.setOutputShape(0, score));
  Shape keypoints = ctx.outputShape(1);
  keypoints.dimensions = {p->numBoxes, p->numKeypoints, 2};
  return ctx.setOutputShape(1, keypoints);
}

// Solves the quadratic fit on `grid` (3x3 around the maximum): delta is the offset of the
// refined maximum (clipped to 1.5 cells), score its value. Leaves them unchanged when the
// Hessian is singular.
void solveForDelta(const float grid[3][3], float* delta, float* score, float atol, float rtol) {
  float b[2], a[2][2];
  b[0] = -(grid[1][2] - grid[1][0]) / 2.0f;
  b[1] = -(grid[2][1] - grid[0][1]) / 2.0f;
  a[0][0] = grid[1][0] - 2.0f * grid[1][1] + grid[1][2];
  a[0][1] = (grid[2][2] - grid[2][0] - grid[0][2] + grid[0][0]) / 4.0f;
  a[1][0] = a[0][1];
  a[1][1] = grid[0][1] - 2.0f * grid[1][1] + grid[2][1];
  const float cross1 = a[0][0] * a[1][1], cross2 = a[0][1] * a[1][0];
  const float det = cross1 - cross2;
  if (std::abs(det) < (atol + rtol * cross1)) return;
  delta[0] = (a[1][1] * b[0] - a[0][1] * b[1]) / det;
  delta[1] = (a[0][0] * b[1] - a[1][0] * b[0]) / det;
  if (std::abs(delta[0]) > 1.5f || std::abs(delta[1]) > 1.5f) {
    const float scale = 1.5f / std::max(std::abs(delta[0]), std::abs(delta[1]));
    delta[0] *= scale;
    delta[1] *= scale;
  }
  *score = grid[1][1] - b[0] * delta[0] - b[1] * delta[1] +
           ((a[0][0] * delta[0] + a[0][1] * delta[1]) * delta[0] +
            (a[1][0] * delta[0] + a[1][1] * delta[1]) * delta[1]) /
               2.0f;
}

Status execute(OperationContext& ctx) {
  auto pr = readParams(ctx);
  NNC_TRY(pr);
  const Params& p = *pr;
  const OperandType t = ctx.inputType(kHeatmap);
  // Half precision needs a looser singularity test.
  const float tol = t == OperandType::TENSOR_FLOAT16 ? 1e-3f : 1e-5f;
  std::vector<float> heatmap = detection::inputAsFloat(ctx, kHeatmap);
  if (p.nchw) heatmap = detection::nchwToNhwc(heatmap.data(), ctx.inputShape(kHeatmap).dimensions);
  const std::vector<float> boxes = detection::inputAsFloat(ctx, kBoxes);
  std::vector<float> scores(static_cast<size_t>(p.numBoxes) * p.numKeypoints);
  std::vector<float> keypoints(scores.size() * 2);
  const uint32_t n = p.size, kp = p.numKeypoints;
  for (uint32_t i = 0; i < p.numBoxes; ++i) {
    const float* box = boxes.data() + 4 * i;
    if (!(box[0] <= box[2] && box[1] <= box[3]))
      return hal::fail("input 1: box ", i, " [", box[0], ", ", box[1], ", ", box[2], ", ", box[3],
                       "] has x2 < x1 or y2 < y1");
    const float* hm = heatmap.data() + static_cast<size_t>(i) * n * n * kp;
    for (uint32_t j = 0; j < kp; ++j) {
      uint32_t maxIndex = 0;
      float maxScore = -FLT_MAX;
      for (uint32_t k = 0; k < n * n; ++k) {
        const float v = hm[static_cast<size_t>(k) * kp + j];
        if (maxScore < v) {
          maxScore = v;
          maxIndex = k;
        }
      }
      const uint32_t maxW = maxIndex % n, maxH = maxIndex / n;
      float grid[3][3];
      for (int32_t dh = -1; dh <= 1; ++dh) {
        for (int32_t dw = -1; dw <= 1; ++dw) {
          int32_t h = static_cast<int32_t>(maxH) + dh;
          int32_t w = static_cast<int32_t>(maxW) + dw;
          // Mirror at the borders.
          h = h < 0 ? 1 : (static_cast<uint32_t>(h) >= n ? static_cast<int32_t>(n) - 2 : h);
          w = w < 0 ? 1 : (static_cast<uint32_t>(w) >= n ? static_cast<int32_t>(n) - 2 : w);
          grid[dh + 1][dw + 1] = hm[(static_cast<size_t>(h) * n + w) * kp + j];
        }
      }
      float delta[2] = {0.0f, 0.0f};
      float score = maxScore;
      solveForDelta(grid, delta, &score, tol, tol);
      const float roiWidth = box[2] - box[0];
      const float roiHeight = box[3] - box[1];
      const float wRel = (static_cast<float>(maxW) + delta[0] + 0.5f) / static_cast<float>(n);
      const float hRel = (static_cast<float>(maxH) + delta[1] + 0.5f) / static_cast<float>(n);
      const size_t o = static_cast<size_t>(i) * kp + j;
      scores[o] = score;
      keypoints[2 * o] = wRel * roiWidth + box[0];
      keypoints[2 * o + 1] = hRel * roiHeight + box[1];
    }
  }
  detection::storeOutput(ctx, 0, scores);
  detection::storeOutput(ctx, 1, keypoints);
  return Status::Ok();
}

}  // namespace

void registerHeatmapMaxKeypoint(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::HEATMAP_MAX_KEYPOINT, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
