// The operands ROI_ALIGN and ROI_POOLING share, read and checked once:
//
//   input 0    feature map [batches, height, width, depth] (NCHW when the layout flag is set)
//   input 1    regions [numRois, 4]: x1, y1, x2, y2 in image coordinates
//   input 2    the batch index of each region
//   input 3/4  output height and width: bins per region
//   input 5/6  height and width stride: image size over feature-map size
//   ...        the operation's own scalars (ROI_ALIGN: the sampling ratios)
//   last       the layout flag
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ops/detection/detection_util.h"
#include "ops/operation.h"

namespace nncosim::ops::detection {

constexpr size_t kRoiInput = 0, kRoiRegions = 1, kRoiBatchSplit = 2, kRoiOutHeight = 3,
                 kRoiOutWidth = 4, kRoiHeightStride = 5, kRoiWidthStride = 6;

struct RoiGrid {
  bool nchw;
  uint32_t batches, inHeight, inWidth, depth, numRois;
  int32_t outHeight, outWidth;
  float heightStride, widthStride;

  // [numRois, outHeight, outWidth, depth]: the output in NHWC order.
  std::vector<uint32_t> outNhwcDims() const;
};

// validate(): operand counts and types for `extraInt32Scalars` INT32 scalars between the
// strides and the layout flag; output 0 of input 0's type.
Status validateRoiOperands(const OperationContext& ctx, size_t extraInt32Scalars);
// Reads and checks the shared operands; the layout flag is input `layoutIndex`.
Result<RoiGrid> readRoiGrid(const OperationContext& ctx, size_t layoutIndex);
// prepare(): output 0 is [numRois, outHeight, outWidth, depth] in the operand's layout.
Status setRoiOutputShape(OperationContext& ctx, const RoiGrid& g);

// Region r's batch index lies in [0, batches).
Status checkRoiBatchIndex(const RoiGrid& g, uint32_t r, int32_t batch);
// Region r ([x1, y1, x2, y2] in image coordinates) is ordered, non-negative and, scaled
// by the strides, inside the feature map.
Status checkImageRoi(const RoiGrid& g, uint32_t r, const float* roi);

// Runs `kernel(inNhwc, outNhwc)` (a Status) over `in` (input 0's elements) and a new
// output, reordering both from and to NCHW when the layout flag is set. Returns the output
// elements in the operand's layout.
template <typename T, typename Kernel>
Result<std::vector<T>> runRoiKernelNhwc(const OperationContext& ctx, const RoiGrid& g, const T* in,
                                        Kernel kernel) {
  std::vector<T> inNhwc;
  if (g.nchw) {
    inNhwc = nchwToNhwc(in, ctx.inputShape(kRoiInput).dimensions);
    in = inNhwc.data();
  }
  std::vector<T> out(static_cast<size_t>(ctx.outputShape(0).elements()));
  NNC_TRY(kernel(in, out.data()));
  if (g.nchw) out = nhwcToNchw(out.data(), g.outNhwcDims());
  return out;
}

}  // namespace nncosim::ops::detection
