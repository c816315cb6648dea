// Operand signature and geometry of the direct convolutions CONV_2D, DEPTHWISE_CONV_2D
// and GROUPED_CONV_2D, which share NNAPI's input layout:
//   0 input, 1 filter, 2 bias, then either
//   implicit: padding scheme, stride w, stride h, [extra], activation
//   explicit: pad left, right, top, bottom, stride w, stride h, [extra], activation
// followed by an optional layout BOOL and an optional pair of dilation factors (w, h).
// [extra] is the depth multiplier (DEPTHWISE) or the group count (GROUPED, whose layout
// flag is mandatory and which has no dilation).
#pragma once

#include <cstdint>
#include <vector>

#include "ops/operation.h"

namespace nncosim::ops::conv {

enum class ConvKind { kConv, kDepthwise, kGrouped };

// Where each parameter sits for this operation's input count.
struct ConvSignature {
  bool explicitPadding = false;
  size_t core = 0;  // inputs before the optional layout flag
  bool hasLayout = false;
  bool hasDilation = false;
  size_t activationIndex = 0;
  size_t extraIndex = 0;  // depth multiplier / group count (if any)
};

// Counts and positions; checks the input/output count.
hal::Result<ConvSignature> convSignature(const OperationContext& ctx, ConvKind kind);

// Full operand type check (validate): tensor types, per-channel filter channel
// dimension, scalar parameter types, output type, ranks known so far, and the bias
// scale rule for quantized layers.
Status validateConvOperands(const OperationContext& ctx, ConvKind kind);

// The layer geometry in NHWC terms, from the input values (prepare and execute).
struct ConvGeometry {
  uint32_t batches = 0, inH = 0, inW = 0, inC = 0;
  uint32_t outH = 0, outW = 0, outC = 0;
  uint32_t filterH = 0, filterW = 0;
  int32_t strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
  int32_t padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  int32_t extra = 1;  // depth multiplier / groups; 1 for CONV_2D
  int32_t activation = 0;
  bool nchw = false;

  std::vector<uint32_t> outputNhwcDims() const { return {batches, outH, outW, outC}; }
};

hal::Result<ConvGeometry> convGeometry(const OperationContext& ctx, ConvKind kind);

// prepare() of the three: geometry, then the output shape in the model's layout.
Status prepareConv(OperationContext& ctx, ConvKind kind);

}  // namespace nncosim::ops::conv
