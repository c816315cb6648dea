// execute() shared by CONV_2D, DEPTHWISE_CONV_2D and GROUPED_CONV_2D: type dispatch,
// NCHW handling and the quantization parameters around the NHWC kernels.
#pragma once

#include "ops/conv/conv_args.h"
#include "ops/operation.h"

namespace nncosim::ops::conv {

Status executeDirectConv(OperationContext& ctx, ConvKind kind);

}  // namespace nncosim::ops::conv
