// GENERATE_PROPOSALS: region proposals as in Faster R-CNN. Anchors tiled over the feature
// map are moved by the predicted deltas and clipped to the image; the preNmsTopN best are
// kept, small or off-image boxes are dropped, then hard NMS keeps at most postNmsTopN per
// image. The output count depends on the data: prepare runs the selection to size the
// outputs and execute runs it again to write them.
#include <algorithm>
#include <numeric>

#include "ops/detection/bbox.h"
#include "ops/detection/detection_ops.h"
#include "ops/detection/detection_util.h"
#include "ops/registry.h"

namespace nncosim::ops {
namespace {

constexpr size_t kScores = 0, kDeltas = 1, kAnchors = 2, kImageInfo = 3, kHeightStride = 4,
                 kWidthStride = 5, kPreNms = 6, kPostNms = 7, kIouThreshold = 8, kMinSize = 9,
                 kLayout = 10;

Status validate(const OperationContext& ctx) {
  NNC_TRY(detection::checkCounts(ctx, 11, 3));
  using T = OperandType;
  const T t = ctx.inputType(kScores);
  if (t == T::TENSOR_FLOAT32 || t == T::TENSOR_FLOAT16) {
    const T s = t == T::TENSOR_FLOAT32 ? T::FLOAT32 : T::FLOAT16;
    NNC_TRY(detection::checkInputTypes(ctx, {t, t, t, t, s, s, T::INT32, T::INT32, s, s, T::BOOL}));
    NNC_TRY(detection::checkOutputTypes(ctx, {t, t, T::TENSOR_INT32}));
  } else if (t == T::TENSOR_QUANT8_ASYMM || t == T::TENSOR_QUANT8_ASYMM_SIGNED) {
    NNC_TRY(detection::checkInputTypes(
        ctx, {t, t, T::TENSOR_QUANT16_SYMM, T::TENSOR_QUANT16_ASYMM, T::FLOAT32, T::FLOAT32,
              T::INT32, T::INT32, T::FLOAT32, T::FLOAT32, T::BOOL}));
    NNC_TRY(detection::checkOutputTypes(ctx, {t, T::TENSOR_QUANT16_ASYMM, T::TENSOR_INT32}));
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(t));
  }
  NNC_TRY(detection::checkInputRank(ctx, kScores, 4));
  NNC_TRY(detection::checkInputRank(ctx, kDeltas, 4));
  NNC_TRY(detection::checkInputRank(ctx, kAnchors, 2));
  return detection::checkInputRank(ctx, kImageInfo, 2);
}

struct Proposals {
  std::vector<float> scores, rois;  // rois: 4 per proposal
  std::vector<int32_t> batches;
};

Result<Proposals> propose(const OperationContext& ctx) {
  NNC_TRY(detection::checkInputRank(ctx, kScores, 4));
  NNC_TRY(detection::checkInputRank(ctx, kDeltas, 4));
  NNC_TRY(detection::checkInputRank(ctx, kAnchors, 2));
  NNC_TRY(detection::checkInputRank(ctx, kImageInfo, 2));
  const bool nchw = detection::boolScalar(ctx, kLayout);
  const Shape& sc = ctx.inputShape(kScores);
  const Shape& de = ctx.inputShape(kDeltas);
  const Shape& an = ctx.inputShape(kAnchors);
  const Shape& ii = ctx.inputShape(kImageInfo);
  const uint32_t numBatches = sc.dim(0);
  const uint32_t height = sc.dim(nchw ? 2 : 1);
  const uint32_t width = sc.dim(nchw ? 3 : 2);
  const uint32_t numAnchors = sc.dim(nchw ? 1 : 3);
  if (de.dim(0) != numBatches || de.dim(nchw ? 2 : 1) != height || de.dim(nchw ? 3 : 2) != width ||
      de.dim(nchw ? 1 : 3) != numAnchors * 4)
    return hal::fail("input 1: deltas ", toString(de.dimensions), " do not match scores ",
                     toString(sc.dimensions), " (4 values per anchor)");
  if (ii.dim(0) != numBatches || ii.dim(1) != 2)
    return hal::fail("input 3: expected [", numBatches, ", 2], found ", toString(ii.dimensions));
  if (an.dim(0) != numAnchors || an.dim(1) != 4)
    return hal::fail("input 2: expected [", numAnchors, ", 4], found ", toString(an.dimensions));
  // NNAPI checks these for QUANT8_ASYMM only.
  if (sc.type == OperandType::TENSOR_QUANT8_ASYMM) {
    if (an.scale != 0.125f)
      return hal::fail("input 2: anchors scale must be 0.125, found ", an.scale);
    if (ii.scale != 0.125f || ii.zeroPoint != 0)
      return hal::fail("input 3: quantization must be scale 0.125, zeroPoint 0; found scale ",
                       ii.scale, ", zeroPoint ", ii.zeroPoint);
  }

  Proposals out;
  const size_t perBatch = static_cast<size_t>(height) * width * numAnchors;
  if (numBatches == 0 || perBatch == 0) return out;
  const float heightStride = detection::floatScalar(ctx, kHeightStride);
  const float widthStride = detection::floatScalar(ctx, kWidthStride);
  const int32_t preNmsTopN = ctx.scalar<int32_t>(kPreNms);
  const int32_t postNmsTopN = ctx.scalar<int32_t>(kPostNms);
  const float iouThreshold = detection::floatScalar(ctx, kIouThreshold);
  const float minSize = detection::floatScalar(ctx, kMinSize);

  std::vector<float> scores = detection::inputAsFloat(ctx, kScores);
  std::vector<float> deltas = detection::inputAsFloat(ctx, kDeltas);
  if (nchw) {
    scores = detection::nchwToNhwc(scores.data(), sc.dimensions);
    deltas = detection::nchwToNhwc(deltas.data(), de.dimensions);
  }
  const std::vector<float> anchors = detection::inputAsFloat(ctx, kAnchors);
  const std::vector<float> imageInfo = detection::inputAsFloat(ctx, kImageInfo);

  // Anchors tiled over the feature map, in image coordinates.
  std::vector<float> tiled(perBatch * 4);
  float* t = tiled.data();
  for (uint32_t h = 0; h < height; ++h) {
    const float hShift = h * heightStride;
    for (uint32_t w = 0; w < width; ++w) {
      const float wShift = w * widthStride;
      for (uint32_t a = 0; a < numAnchors; ++a, t += 4) {
        t[0] = anchors[4 * a] + wShift;
        t[1] = anchors[4 * a + 1] + hShift;
        t[2] = anchors[4 * a + 2] + wShift;
        t[3] = anchors[4 * a + 3] + hShift;
      }
    }
  }

  const std::vector<int32_t> zeroBatches(perBatch, 0);
  std::vector<float> boxes(perBatch * 4);
  for (uint32_t b = 0; b < numBatches; ++b) {
    const float* batchScores = scores.data() + b * perBatch;
    const float* info = imageInfo.data() + 2 * b;
    Status st = detection::bboxTransform(tiled.data(), static_cast<uint32_t>(perBatch),
                                         deltas.data() + b * perBatch * 4, 1, zeroBatches.data(),
                                         info, 1, boxes.data());
    if (!st.ok()) return hal::fail("input 2 (anchors): ", st.error());

    std::vector<uint32_t> select(perBatch);
    std::iota(select.begin(), select.end(), 0u);
    if (preNmsTopN > 0 && static_cast<size_t>(preNmsTopN) < select.size()) {
      std::stable_sort(select.begin(), select.end(), [batchScores](uint32_t l, uint32_t r) {
        return batchScores[l] > batchScores[r];
      });
      select.resize(static_cast<size_t>(preNmsTopN));
    }
    // Drop boxes not larger than minSize, or whose centre is off the image.
    size_t kept = 0;
    for (uint32_t idx : select) {
      const float* r = boxes.data() + static_cast<size_t>(idx) * 4;
      const float w = r[2] - r[0], h = r[3] - r[1];
      const float cx = r[0] + w / 2.0f, cy = r[1] + h / 2.0f;
      if (w > minSize && h > minSize && cx < info[1] && cy < info[0]) select[kept++] = idx;
    }
    select.resize(kept);
    uint32_t* end = detection::hardNms(
        batchScores, iouThreshold, postNmsTopN,
        [&boxes](uint32_t i) { return boxes.data() + static_cast<size_t>(i) * 4; }, select.data(),
        select.data() + select.size());
    select.resize(static_cast<size_t>(end - select.data()));
    for (uint32_t idx : select) {
      out.rois.insert(out.rois.end(), boxes.begin() + idx * 4, boxes.begin() + (idx + 1) * 4);
      out.scores.push_back(batchScores[idx]);
      out.batches.push_back(static_cast<int32_t>(b));
    }
  }
  return out;
}

Status setShapes(OperationContext& ctx, uint32_t n) {
  Shape s = ctx.outputShape(0);
  s.dimensions = {n};
  NNC_TRY(ctx.setOutputShape(0, s));
  s = ctx.outputShape(1);
  s.dimensions = {n, 4};
  NNC_TRY(ctx.setOutputShape(1, s));
  s = ctx.outputShape(2);
  s.dimensions = {n};
  return ctx.setOutputShape(2, s);
}

Status prepare(OperationContext& ctx) {
  auto p = propose(ctx);
  NNC_TRY(p);
  return setShapes(ctx, static_cast<uint32_t>(p->scores.size()));
}

Status execute(OperationContext& ctx) {
  auto pr = propose(ctx);
  NNC_TRY(pr);
  const Proposals& p = *pr;
  if (p.scores.empty()) return Status::Ok();
  if (ctx.outputShape(0).elements() != p.scores.size())
    return hal::fail("output 0: prepared for ", ctx.outputShape(0).elements(), " proposals, found ",
                     p.scores.size());
  detection::storeOutput(ctx, 0, p.scores);
  detection::storeOutput(ctx, 1, p.rois);
  std::memcpy(ctx.outputBytes(2), p.batches.data(), p.batches.size() * sizeof(int32_t));
  return Status::Ok();
}

}  // namespace

void registerGenerateProposals(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::GENERATE_PROPOSALS, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops
