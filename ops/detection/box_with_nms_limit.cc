// BOX_WITH_NMS_LIMIT: per batch and per class (class 0 is background), keeps the boxes
// scoring above a threshold, runs hard, linear or gaussian (soft) NMS, then keeps the
// maxNumDetections best of the batch, ordered by class then score. The number of outputs
// depends on the data, so prepare runs the selection to size them and execute runs it
// again to write them (it is deterministic and cheap).
#include <algorithm>
#include <cmath>
#include <functional>

#include "hal/half.h"
#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kScores = 0, kRois = 1, kBatches = 2, kScoreThreshold = 3, kMaxDetections = 4,
                 kKernel = 5, kIouThreshold = 6, kSigma = 7, kNmsScoreThreshold = 8;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 9, 4));
  using T = OperandType;
  const T t = ctx.inputType(kScores);
  if (t == T::TENSOR_FLOAT32 || t == T::TENSOR_FLOAT16) {
    const T s = t == T::TENSOR_FLOAT32 ? T::FLOAT32 : T::FLOAT16;
    NNC_TRY(
        detection::checkInputTypes(ctx, {t, t, T::TENSOR_INT32, s, T::INT32, T::INT32, s, s, s}));
    NNC_TRY(detection::checkOutputTypes(ctx, {t, t, T::TENSOR_INT32, T::TENSOR_INT32}));
  } else if (t == T::TENSOR_QUANT8_ASYMM || t == T::TENSOR_QUANT8_ASYMM_SIGNED) {
    NNC_TRY(
        detection::checkInputTypes(ctx, {t, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::FLOAT32,
                                         T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::FLOAT32}));
    NNC_TRY(detection::checkOutputTypes(
        ctx, {t, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32, T::TENSOR_INT32}));
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  if (ctx.hasInputValue(kKernel)) {
    const int32_t k = ctx.scalar<int32_t>(kKernel);
    if (k < 0 || k > 2)
      return hal::fail("input 5: NMS kernel ", k, " is not 0 (hard), 1 (linear) or 2 (gaussian)");
  }
  NNC_TRY(detection::checkInputRank(ctx, kScores, 2));
  NNC_TRY(detection::checkInputRank(ctx, kRois, 2));
  return detection::checkInputRank(ctx, kBatches, 1);
}

struct Selection {
  std::vector<float> scores;       // after soft-NMS decay
  std::vector<uint32_t> selected;  // indexes into scores (roi * numClasses + class)
  std::vector<uint32_t> splitIn, splitOut;
  uint32_t numClasses = 0;
};

Status checkShapes(const OperationContext& ctx) {
  NNC_TRY(detection::checkInputRank(ctx, kScores, 2));
  NNC_TRY(detection::checkInputRank(ctx, kRois, 2));
  NNC_TRY(detection::checkInputRank(ctx, kBatches, 1));
  const Shape& scores = ctx.inputShape(kScores);
  const Shape& rois = ctx.inputShape(kRois);
  const uint32_t numRois = scores.dim(0), numClasses = scores.dim(1);
  if (numClasses < 2)
    return hal::fail("input 0: expected [numRois, numClasses > 1], found ",
                     toString(scores.dimensions));
  if (rois.dim(0) != numRois || rois.dim(1) != 4 * numClasses)
    return hal::fail("input 1: expected [", numRois, ", ", 4 * numClasses, "], found ",
                     toString(rois.dimensions));
  if (ctx.inputShape(kBatches).dim(0) != numRois)
    return hal::fail("input 2: expected ", numRois, " batch indexes, found ",
                     ctx.inputShape(kBatches).dim(0));
  if (rois.type == OperandType::TENSOR_QUANT16_ASYMM &&
      (rois.scale != 0.125f || rois.zeroPoint != 0))
    return hal::fail("input 1: quantization must be scale 0.125, zeroPoint 0; found scale ",
                     rois.scale, ", zeroPoint ", rois.zeroPoint);
  return Status::Ok();
}

// Soft NMS within one class over candidates [begin, end): the best remaining candidate is
// kept, every other one has its score multiplied by kernel(IoU) and is dropped below
// `threshold`. NNAPI's swap order is kept since it decides ties.
template <typename Kernel>
uint32_t* softNms(float* scores, float threshold, int32_t maxDetections,
                  const std::function<const float*(uint32_t)>& roi, const Kernel& kernel,
                  uint32_t* begin, uint32_t* end) {
  const size_t limit =
      maxDetections < 0 ? static_cast<size_t>(end - begin) : static_cast<size_t>(maxDetections);
  size_t kept = 0;
  while (begin < end && kept < limit) {
    uint32_t* best = begin;
    for (uint32_t* p = begin + 1; p < end; ++p)
      if (scores[*best] < scores[*p]) best = p;
    std::swap(*best, *begin);
    for (uint32_t* p = begin + 1; p < end; ++p) {
      const float iou = detection::iouAxisAligned(roi(*p), roi(*begin));
      scores[*p] *= kernel(iou);
      if (scores[*p] < threshold) {
        std::swap(*p, *(end - 1));
        --end;
        --p;
      }
    }
    ++begin;
    ++kept;
  }
  return begin;
}

Result<Selection> select(const OperationContext& ctx) {
  NNC_TRY(checkShapes(ctx));
  Selection sel;
  const uint32_t numRois = ctx.inputShape(kScores).dim(0);
  const uint32_t numClasses = ctx.inputShape(kScores).dim(1);
  sel.numClasses = numClasses;
  if (numRois == 0) return sel;
  sel.scores = detection::inputAsFloat(ctx, kScores);
  const std::vector<float> rois = detection::inputAsFloat(ctx, kRois);
  const int32_t* batches = ctx.input<int32_t>(kBatches);
  const float scoreThreshold = detection::floatScalar(ctx, kScoreThreshold);
  const int32_t maxDetections = ctx.scalar<int32_t>(kMaxDetections);
  const int32_t kernelType = ctx.scalar<int32_t>(kKernel);
  const float iouThreshold = detection::floatScalar(ctx, kIouThreshold);
  const float sigma = detection::floatScalar(ctx, kSigma);
  const float nmsScoreThreshold = detection::floatScalar(ctx, kNmsScoreThreshold);
  std::function<float(float)> kernel;
  switch (kernelType) {
    case 0:
      kernel = [iouThreshold](float iou) { return iou < iouThreshold ? 1.0f : 0.0f; };
      break;
    case 1:
      kernel = [iouThreshold](float iou) { return iou < iouThreshold ? 1.0f : 1.0f - iou; };
      break;
    case 2:
      kernel = [sigma](float iou) { return std::exp(-1.0f * iou * iou / sigma); };
      break;
    default:
      return hal::fail("input 5: NMS kernel ", kernelType,
                       " is not 0 (hard), 1 (linear) or 2 (gaussian)");
  }

  // Boxes of one batch are contiguous.
  for (uint32_t i = 0; i < numRois; ++i) {
    if (i > 0 && batches[i] == batches[i - 1])
      ++sel.splitIn.back();
    else
      sel.splitIn.push_back(1);
  }

  float* scoresBase = sel.scores.data();
  const float* roiBase = rois.data();
  for (size_t b = 0; b < sel.splitIn.size(); ++b) {
    const uint32_t count = sel.splitIn[b];
    // NNAPI checks the first count boxes of the batch's block (4 values apart); kept as is
    // so the same inputs are accepted.
    for (uint32_t i = 0; i < count; ++i) {
      const float* r = roiBase + 4 * i;
      if (!(r[0] <= r[2] && r[1] <= r[3]))
        return hal::fail("input 1: box [", r[0], ", ", r[1], ", ", r[2], ", ", r[3],
                         "] has x2 < x1 or y2 < y1");
    }
    auto roiOf = [roiBase](uint32_t ind) { return roiBase + static_cast<size_t>(ind) * 4; };
    std::vector<uint32_t> result;
    for (uint32_t c = 1; c < numClasses; ++c) {
      const size_t start = result.size();
      for (uint32_t i = 0; i < count; ++i) {
        const uint32_t index = i * numClasses + c;
        if (scoresBase[index] > scoreThreshold) result.push_back(index);
      }
      uint32_t* newEnd = softNms(scoresBase, nmsScoreThreshold, maxDetections, roiOf, kernel,
                                 result.data() + start, result.data() + result.size());
      result.resize(static_cast<size_t>(newEnd - result.data()));
    }
    std::stable_sort(result.begin(), result.end(), [scoresBase](uint32_t l, uint32_t r) {
      return scoresBase[l] > scoresBase[r];
    });
    if (maxDetections >= 0 && result.size() > static_cast<size_t>(maxDetections))
      result.resize(static_cast<size_t>(maxDetections));
    std::stable_sort(result.begin(), result.end(),
                     [scoresBase, numClasses](uint32_t l, uint32_t r) {
                       const uint32_t lc = l % numClasses, rc = r % numClasses;
                       return lc == rc ? scoresBase[l] > scoresBase[r] : lc < rc;
                     });
    const uint32_t offset = static_cast<uint32_t>(scoresBase - sel.scores.data());
    for (uint32_t idx : result) sel.selected.push_back(offset + idx);
    sel.splitOut.push_back(static_cast<uint32_t>(result.size()));
    scoresBase += static_cast<size_t>(count) * numClasses;
    roiBase += static_cast<size_t>(count) * numClasses * 4;
  }
  return sel;
}

Status setShapes(OperationContext& ctx, uint32_t n) {
  Shape s = ctx.outputShape(0);
  s.dimensions = {n};
  NNC_TRY(ctx.setOutputShape(0, s));
  s = ctx.outputShape(1);
  s.dimensions = {n, 4};
  NNC_TRY(ctx.setOutputShape(1, s));
  for (size_t i : {2, 3}) {
    s = ctx.outputShape(i);
    s.dimensions = {n};
    NNC_TRY(ctx.setOutputShape(i, s));
  }
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  auto sel = select(ctx);
  NNC_TRY(sel);
  return setShapes(ctx, static_cast<uint32_t>(sel->selected.size()));
}

Status execute(OperationContext& ctx) {
  auto selR = select(ctx);
  NNC_TRY(selR);
  const Selection& sel = *selR;
  const size_t n = sel.selected.size();
  if (n == 0) return Status::Ok();
  if (ctx.outputShape(0).elements() != n)
    return hal::fail("output 0: prepared for ", ctx.outputShape(0).elements(),
                     " detections, found ", n);
  const uint32_t numClasses = sel.numClasses;
  std::vector<float> scoresOut(n);
  const size_t roiBytes = 4 * hal::elementSize(ctx.inputType(kRois));
  const uint8_t* roisIn = ctx.inputBytes(kRois);
  uint8_t* roisOut = ctx.outputBytes(1);
  int32_t* classesOut = ctx.output<int32_t>(2);
  int32_t* batchesOut = ctx.output<int32_t>(3);
  const int32_t* batchesIn = ctx.input<int32_t>(kBatches);
  size_t k = 0, roiStart = 0;
  for (size_t b = 0; b < sel.splitOut.size(); ++b) {
    for (uint32_t j = 0; j < sel.splitOut[b]; ++j, ++k) {
      const uint32_t index = sel.selected[k];
      scoresOut[k] = sel.scores[index];
      // Boxes are copied as stored (no requantization).
      std::memcpy(roisOut + k * roiBytes, roisIn + static_cast<size_t>(index) * roiBytes, roiBytes);
      classesOut[k] = static_cast<int32_t>(index % numClasses);
      batchesOut[k] = batchesIn[roiStart];
    }
    roiStart += sel.splitIn[b];
  }
  detection::storeOutput(ctx, 0, scoresOut);
  return Status::Ok();
}

}  // namespace

void registerBoxWithNmsLimit(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::BOX_WITH_NMS_LIMIT, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
