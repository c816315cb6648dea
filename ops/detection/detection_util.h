// Helpers shared by the detection family: operand signature checks, scalar reads,
// float conversion of any tensor type and NCHW/NHWC reordering.
//
// Several of these operations (ROI and box operations, HEATMAP_MAX_KEYPOINT) compute
// their quantized variants in float, as NNAPI's CPU reference does: dequantize with
// (float(q) - zeroPoint) * scale, run the float kernel, requantize with
// round(v / scale + zeroPoint) and saturate. Every step is float32 arithmetic so that the
// integer outputs match that reference bit for bit.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "ops/operation.h"

namespace nncosim::ops::detection {

// Exactly `inputs` inputs and `outputs` outputs.
Status checkCounts(const OperationContext& ctx, size_t inputs, size_t outputs);
// Input/output i has types[i] (one entry per operand, in order).
Status checkInputTypes(const OperationContext& ctx, const std::vector<OperandType>& types);
Status checkOutputTypes(const OperationContext& ctx, std::initializer_list<OperandType> types);
// The rank of input i is `rank` (unknown ranks pass: validate runs before shapes are known).
Status checkInputRank(const OperationContext& ctx, size_t i, uint32_t rank);
// "input 3 (INT32 scalar) has no value" when a scalar parameter is not readable.
Status checkHasValue(const OperationContext& ctx, size_t i);

// A FLOAT32 or FLOAT16 scalar, as float.
float floatScalar(const OperationContext& ctx, size_t i);
bool boolScalar(const OperationContext& ctx, size_t i);

// Input i converted to float: float types as they are (half widened), quantized types
// dequantized as NNAPI does, INT32 converted.
std::vector<float> inputAsFloat(const OperationContext& ctx, size_t i);
// Writes `values` to output i, converting to its type (half rounding, or quantization with
// the output's declared scale and zero point).
void storeOutput(OperationContext& ctx, size_t i, const std::vector<float>& values);

// NNAPI's float -> quantized conversion: round(v / scale + zeroPoint), saturated to [lo, hi].
int32_t quantizeValue(float v, float scale, int32_t zeroPoint, int32_t lo, int32_t hi);

// Reorders a 4-D tensor between NCHW and NHWC. `dims` are the source dimensions.
template <typename T>
std::vector<T> nchwToNhwc(const T* src, const std::vector<uint32_t>& dims) {
  const uint32_t n = dims[0], c = dims[1], h = dims[2], w = dims[3];
  std::vector<T> dst(static_cast<size_t>(n) * c * h * w);
  const size_t plane = static_cast<size_t>(h) * w;
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t k = 0; k < c; ++k)
      for (size_t p = 0; p < plane; ++p)
        dst[(b * plane + p) * c + k] = src[(static_cast<size_t>(b) * c + k) * plane + p];
  return dst;
}
template <typename T>
std::vector<T> nhwcToNchw(const T* src, const std::vector<uint32_t>& dims) {
  const uint32_t n = dims[0], h = dims[1], w = dims[2], c = dims[3];
  std::vector<T> dst(static_cast<size_t>(n) * c * h * w);
  const size_t plane = static_cast<size_t>(h) * w;
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t k = 0; k < c; ++k)
      for (size_t p = 0; p < plane; ++p)
        dst[(static_cast<size_t>(b) * c + k) * plane + p] = src[(b * plane + p) * c + k];
  return dst;
}

// 1/sqrt(input) for input >= 0 as a Q31 multiplier and a right shift (shift <= 0), in
// gemmlowp fixed point as TFLite's GetInvSqrtQuantizedMultiplierExp computes it (with
// reverse_shift -1). Inputs 0 and 1 give (INT32_MAX, 0). Defined in l2_normalization.cc.
void invSqrtQuantizedMultiplier(int32_t input, int32_t* multiplier, int* shift);

// Axis-aligned intersection over union of two [x1, y1, x2, y2] boxes.
float iouAxisAligned(const float* a, const float* b);

// In-place hard NMS over candidate indexes [begin, end): repeatedly moves the best
// remaining candidate to the front and discards (swaps to the back) every other candidate
// overlapping it with IoU >= iouThreshold. Keeps at most maxDetections (all when < 0).
// Returns the new end. The swap order is NNAPI's, which decides ties.
template <typename RoiFn>
uint32_t* hardNms(const float* scores, float iouThreshold, int32_t maxDetections, RoiFn roi,
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
      if (iouAxisAligned(roi(*p), roi(*begin)) >= iouThreshold) {
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

}  // namespace nncosim::ops::detection
