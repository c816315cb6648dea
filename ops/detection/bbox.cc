#include "ops/detection/bbox.h"

#include <algorithm>
#include <cmath>

namespace nncosim::ops::detection {

Status bboxTransform(const float* rois, uint32_t numRois, const float* deltas, uint32_t numClasses,
                     const int32_t* batchIds, const float* imageInfo, uint32_t numBatches,
                     float* out) {
  for (uint32_t r = 0; r < numRois; ++r) {
    const float* roi = rois + 4 * r;
    const int32_t batch = batchIds[r];
    if (batch < 0 || static_cast<uint32_t>(batch) >= numBatches)
      return hal::fail("roi ", r, ": batch index ", batch, " is outside [0, ", numBatches, ")");
    if (!(roi[0] <= roi[2] && roi[1] <= roi[3]))
      return hal::fail("roi ", r, ": [", roi[0], ", ", roi[1], ", ", roi[2], ", ", roi[3],
                       "] has x2 < x1 or y2 < y1");
    const float imageHeight = imageInfo[2 * batch];
    const float imageWidth = imageInfo[2 * batch + 1];
    const float w = roi[2] - roi[0];
    const float h = roi[3] - roi[1];
    const float cx = (roi[0] + roi[2]) / 2;
    const float cy = (roi[1] + roi[3]) / 2;
    for (uint32_t c = 0; c < numClasses; ++c) {
      const float* d = deltas + (static_cast<size_t>(r) * numClasses + c) * 4;
      float* o = out + (static_cast<size_t>(r) * numClasses + c) * 4;
      const float nw = std::exp(d[2]) * w;
      const float nh = std::exp(d[3]) * h;
      const float nx = cx + d[0] * w;
      const float ny = cy + d[1] * h;
      const float x1 = nx - nw / 2, y1 = ny - nh / 2, x2 = nx + nw / 2, y2 = ny + nh / 2;
      o[0] = std::min(std::max(x1, 0.0f), imageWidth);
      o[1] = std::min(std::max(y1, 0.0f), imageHeight);
      o[2] = std::min(std::max(x2, 0.0f), imageWidth);
      o[3] = std::min(std::max(y2, 0.0f), imageHeight);
    }
  }
  return Status::Ok();
}

}  // namespace nncosim::ops::detection
