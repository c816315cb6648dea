// DETECTION_POSTPROCESSING: SSD post-processing. Decodes centre-size box encodings
// against anchors, then either regular NMS (per class) or fast NMS (on each anchor's best
// class), writing a fixed number of detections per batch (zero-filled) and the number of
// valid ones.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kScores = 0, kDeltas = 1, kAnchors = 2, kScaleY = 3, kScaleX = 4, kScaleH = 5,
                 kScaleW = 6, kUseRegularNms = 7, kMaxDetections = 8, kMaxClassesPerDetection = 9,
                 kMaxDetectionsPerClass = 10, kScoreThreshold = 11, kIouThreshold = 12,
                 kIsBgInLabel = 13;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 14, 4));
  using T = OperandType;
  const T t = ctx.inputType(kScores);
  if (t != T::TENSOR_FLOAT32 && t != T::TENSOR_FLOAT16)
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  const T s = t == T::TENSOR_FLOAT32 ? T::FLOAT32 : T::FLOAT16;
  NNC_TRY(detection::checkInputTypes(
      ctx, {t, t, t, s, s, s, s, T::BOOL, T::INT32, T::INT32, T::INT32, s, s, T::BOOL}));
  NNC_TRY(detection::checkOutputTypes(ctx, {t, t, T::TENSOR_INT32, T::TENSOR_INT32}));
  NNC_TRY(detection::checkInputRank(ctx, kScores, 3));
  NNC_TRY(detection::checkInputRank(ctx, kDeltas, 3));
  return detection::checkInputRank(ctx, kAnchors, 2);
}

struct Params {
  uint32_t numBatches, numAnchors, numClasses, boxLength, numOut;
  float scaleY, scaleX, scaleH, scaleW, scoreThreshold, iouThreshold;
  bool regularNms, bgInLabel;
  int32_t maxDetections, maxClassesPerDetection, maxDetectionsPerClass;
};

Result<Params> readParams(const OperationContext& ctx) {
  NNC_TRY(detection::checkInputRank(ctx, kScores, 3));
  NNC_TRY(detection::checkInputRank(ctx, kDeltas, 3));
  NNC_TRY(detection::checkInputRank(ctx, kAnchors, 2));
  const Shape& sc = ctx.inputShape(kScores);
  const Shape& de = ctx.inputShape(kDeltas);
  const Shape& an = ctx.inputShape(kAnchors);
  Params p;
  p.numBatches = sc.dim(0);
  p.numAnchors = sc.dim(1);
  p.numClasses = sc.dim(2);
  p.boxLength = de.dim(2);
  if (de.dim(0) != p.numBatches || de.dim(1) != p.numAnchors)
    return hal::fail("input 1: expected [", p.numBatches, ", ", p.numAnchors,
                     ", boxLength], found ", toString(de.dimensions));
  if (an.dim(0) != p.numAnchors || an.dim(1) != 4)
    return hal::fail("input 2: expected [", p.numAnchors, ", 4], found ", toString(an.dimensions));
  p.scaleY = detection::floatScalar(ctx, kScaleY);
  p.scaleX = detection::floatScalar(ctx, kScaleX);
  p.scaleH = detection::floatScalar(ctx, kScaleH);
  p.scaleW = detection::floatScalar(ctx, kScaleW);
  p.regularNms = detection::boolScalar(ctx, kUseRegularNms);
  p.maxDetections = ctx.scalar<int32_t>(kMaxDetections);
  p.maxClassesPerDetection = ctx.scalar<int32_t>(kMaxClassesPerDetection);
  p.maxDetectionsPerClass = ctx.scalar<int32_t>(kMaxDetectionsPerClass);
  p.scoreThreshold = detection::floatScalar(ctx, kScoreThreshold);
  p.iouThreshold = detection::floatScalar(ctx, kIouThreshold);
  p.bgInLabel = detection::boolScalar(ctx, kIsBgInLabel);
  if (!(p.scaleY > 0 && p.scaleX > 0 && p.scaleH > 0 && p.scaleW > 0))
    return hal::fail("inputs 3-6: scales ", p.scaleY, ", ", p.scaleX, ", ", p.scaleH, ", ",
                     p.scaleW, " must be positive");
  if (!(p.scoreThreshold >= 0))
    return hal::fail("input 11: score threshold ", p.scoreThreshold, " must be >= 0");
  if (!(p.iouThreshold >= 0))
    return hal::fail("input 12: IoU threshold ", p.iouThreshold, " must be >= 0");
  if (p.numClasses < 2)
    return hal::fail("input 0: expected more than 1 class, found ", p.numClasses);
  if (p.boxLength < 4)
    return hal::fail("input 1: box encodings need at least 4 values, found ", p.boxLength);
  if (p.maxDetections <= 0)
    return hal::fail("input 8: max detections ", p.maxDetections, " must be positive");
  p.numOut = static_cast<uint32_t>(p.maxDetections);
  if (p.regularNms) {
    if (p.maxDetectionsPerClass <= 0)
      return hal::fail("input 10: max detections per class ", p.maxDetectionsPerClass,
                       " must be positive");
  } else {
    if (p.maxClassesPerDetection <= 0)
      return hal::fail("input 9: max classes per detection ", p.maxClassesPerDetection,
                       " must be positive");
    const uint64_t n = uint64_t{p.numOut} * static_cast<uint32_t>(p.maxClassesPerDetection);
    if (n > (uint64_t{1} << 30)) return hal::fail("inputs 8/9: ", n, " detections is too many");
    p.numOut = static_cast<uint32_t>(n);
  }
  return p;
}

Status prepare(OperationContext& ctx) {
  auto p = readParams(ctx);
  NNC_TRY(p);
  Shape s = ctx.outputShape(0);
  s.dimensions = {p->numBatches, p->numOut};
  NNC_TRY(ctx.setOutputShape(0, s));
  s = ctx.outputShape(1);
  s.dimensions = {p->numBatches, p->numOut, 4};
  NNC_TRY(ctx.setOutputShape(1, s));
  s = ctx.outputShape(2);
  s.dimensions = {p->numBatches, p->numOut};
  NNC_TRY(ctx.setOutputShape(2, s));
  s = ctx.outputShape(3);
  s.dimensions = {p->numBatches};
  return ctx.setOutputShape(3, s);
}

Status execute(OperationContext& ctx) {
  auto pr = readParams(ctx);
  NNC_TRY(pr);
  const Params& p = *pr;
  const std::vector<float> scores = detection::inputAsFloat(ctx, kScores);
  const std::vector<float> deltas = detection::inputAsFloat(ctx, kDeltas);
  const std::vector<float> anchors = detection::inputAsFloat(ctx, kAnchors);
  const uint32_t nc = p.numClasses, na = p.numAnchors, no = p.numOut;
  std::vector<float> scoreOut(static_cast<size_t>(p.numBatches) * no, 0.0f);
  std::vector<float> roiOut(scoreOut.size() * 4, 0.0f);
  int32_t* classOut = ctx.output<int32_t>(2);
  int32_t* countOut = ctx.output<int32_t>(3);
  std::fill(classOut, classOut + scoreOut.size(), 0);
  const int32_t labelOffset = p.bgInLabel ? 0 : 1;
  std::vector<float> boxes(static_cast<size_t>(na) * 4);
  for (uint32_t b = 0; b < p.numBatches; ++b) {
    const float* batchScores = scores.data() + static_cast<size_t>(b) * na * nc;
    // Decode [ycenter, xcenter, h, w] encodings into [y1, x1, y2, x2].
    for (uint32_t a = 0; a < na; ++a) {
      const float* anc = anchors.data() + 4 * a;
      const float* d = deltas.data() + (static_cast<size_t>(b) * na + a) * p.boxLength;
      const float yCtr = anc[0] + anc[2] * d[0] / p.scaleY;
      const float xCtr = anc[1] + anc[3] * d[1] / p.scaleX;
      const float hHalf = anc[2] * std::exp(d[2] / p.scaleH) * 0.5f;
      const float wHalf = anc[3] * std::exp(d[3] / p.scaleW) * 0.5f;
      boxes[4 * a] = yCtr - hHalf;
      boxes[4 * a + 1] = xCtr - wHalf;
      boxes[4 * a + 2] = yCtr + hHalf;
      boxes[4 * a + 3] = xCtr + wHalf;
    }
    float* sOut = scoreOut.data() + static_cast<size_t>(b) * no;
    float* rOut = roiOut.data() + static_cast<size_t>(b) * no * 4;
    int32_t* cOut = classOut + static_cast<size_t>(b) * no;
    if (p.regularNms) {
      // Per class (skipping background), then the best maxDetections overall.
      std::vector<uint32_t> select;
      auto roiOf = [&boxes, nc](uint32_t ind) { return boxes.data() + (ind / nc) * 4; };
      for (uint32_t c = 1; c < nc; ++c) {
        const size_t start = select.size();
        for (uint32_t a = 0; a < na; ++a) {
          const uint32_t index = a * nc + c;
          if (batchScores[index] > p.scoreThreshold) select.push_back(index);
        }
        uint32_t* end =
            detection::hardNms(batchScores, p.iouThreshold, p.maxDetectionsPerClass, roiOf,
                               select.data() + start, select.data() + select.size());
        select.resize(static_cast<size_t>(end - select.data()));
      }
      std::stable_sort(select.begin(), select.end(), [batchScores](uint32_t l, uint32_t r) {
        return batchScores[l] > batchScores[r];
      });
      if (select.size() > static_cast<size_t>(p.maxDetections))
        select.resize(static_cast<size_t>(p.maxDetections));
      for (size_t i = 0; i < select.size(); ++i) {
        const uint32_t ind = select[i];
        sOut[i] = batchScores[ind];
        std::copy_n(boxes.data() + (ind / nc) * 4, 4, rOut + 4 * i);
        cOut[i] = static_cast<int32_t>(ind % nc) - labelOffset;
      }
      countOut[b] = static_cast<int32_t>(select.size());
    } else {
      // Fast NMS on each anchor's best non-background score.
      const uint32_t outClasses =
          std::min<uint32_t>(nc - 1, static_cast<uint32_t>(p.maxClassesPerDetection));
      std::vector<float> maxScores(na);
      for (uint32_t a = 0; a < na; ++a)
        maxScores[a] = *std::max_element(batchScores + a * nc + 1, batchScores + (a + 1) * nc);
      std::vector<uint32_t> select;
      for (uint32_t a = 0; a < na; ++a)
        if (maxScores[a] > p.scoreThreshold) select.push_back(a);
      uint32_t* end = detection::hardNms(
          maxScores.data(), p.iouThreshold, p.maxDetections,
          [&boxes](uint32_t i) { return boxes.data() + static_cast<size_t>(i) * 4; }, select.data(),
          select.data() + select.size());
      select.resize(static_cast<size_t>(end - select.data()));
      size_t k = 0;
      std::vector<uint32_t> order(nc - 1);
      for (uint32_t a : select) {
        const float* s = batchScores + static_cast<size_t>(a) * nc;
        std::iota(order.begin(), order.end(), 1u);
        std::stable_sort(order.begin(), order.end(),
                         [s](uint32_t l, uint32_t r) { return s[l] > s[r]; });
        for (uint32_t c = 0; c < outClasses; ++c, ++k) {
          sOut[k] = s[order[c]];
          std::copy_n(boxes.data() + static_cast<size_t>(a) * 4, 4, rOut + 4 * k);
          cOut[k] = static_cast<int32_t>(order[c]) - labelOffset;
        }
      }
      countOut[b] = static_cast<int32_t>(select.size() * outClasses);
    }
  }
  detection::storeOutput(ctx, 0, scoreOut);
  detection::storeOutput(ctx, 1, roiOut);
  return Status::Ok();
}

}  // namespace

void registerDetectionPostprocessing(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::DETECTION_POSTPROCESSING, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
