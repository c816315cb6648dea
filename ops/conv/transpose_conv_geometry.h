// TRANSPOSE_CONV_2D's geometry from its inputs: shared by the reference (prepare, execute)
// and the driver's NPU lowering. Inputs: 0 input, 1 filter [outC, fH, fW, inC], 2 bias, then
//   implicit (9): 3 output shape (TENSOR_INT32 [4]), 4 padding scheme, 5 stride w,
//                 6 stride h, 7 activation, 8 layout
//   explicit (11): 3..6 pad left, right, top, bottom, 7 stride w, 8 stride h,
//                  9 activation, 10 layout
// Right/bottom paddings may be negative (NNAPI uses that to pick among the output sizes
// a strided transpose convolution can produce).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/operation.h"

namespace nncosim::ops::conv {

struct TransposeConvGeometry {
  uint32_t batches = 0, inH = 0, inW = 0, inC = 0;
  uint32_t outH = 0, outW = 0, outC = 0;
  uint32_t filterH = 0, filterW = 0;
  int32_t strideH = 1, strideW = 1;
  int32_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int32_t activation = 0;
  bool nchw = false;
  std::vector<uint32_t> outputNhwcDims() const { return {batches, outH, outW, outC}; }
};

inline bool isExplicitTransposeConv(const OperationContext& ctx) { return ctx.numInputs() == 11; }
inline size_t transposeConvActivationIndex(const OperationContext& ctx) {
  return isExplicitTransposeConv(ctx) ? 9 : 7;
}
inline size_t transposeConvLayoutIndex(const OperationContext& ctx) {
  return isExplicitTransposeConv(ctx) ? 10 : 8;
}

// Checks the counts, ranks, parameters and sizes; the output size it implies.
// `declaredOutput` (the output operand's dimensions, model layout) stands in for an
// implicit-form output shape that is a runtime value: the paddings depend only on the
// output's spatial size, so a plan compiled for the declared output is exact whenever
// the runtime shape yields that output (the driver's compiler; the reference passes none).
hal::Result<TransposeConvGeometry> transposeConvGeometry(
    const OperationContext& ctx, const std::vector<uint32_t>* declaredOutput = nullptr);

}  // namespace nncosim::ops::conv
