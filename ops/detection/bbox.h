// Box arithmetic shared by AXIS_ALIGNED_BBOX_TRANSFORM and GENERATE_PROPOSALS.
#pragma once

#include <cstdint>

#include "ops/operation.h"

namespace nncosim::ops::detection {

// Applies deltas [dx, dy, dw, dh] (one set of 4 per class) to each [x1, y1, x2, y2] roi:
// centre moves by (dx * w, dy * h), size scales by (exp(dw), exp(dh)); the result is
// clipped to the image of the roi's batch (imageInfo rows are [height, width]).
// out has numRois * numClasses * 4 values.
Status bboxTransform(const float* rois, uint32_t numRois, const float* deltas, uint32_t numClasses,
                     const int32_t* batchIds, const float* imageInfo, uint32_t numBatches,
                     float* out);

}  // namespace nncosim::ops::detection
