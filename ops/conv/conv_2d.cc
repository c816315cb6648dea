// CONV_2D: NNAPI signature and shape handling in conv_args.cc, kernel in conv_kernels.h.
#include "ops/conv/conv_args.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/direct_conv.h"

namespace nncosim::ops::conv {

Status validateConv2D(const OperationContext& ctx) {
  return validateConvOperands(ctx, ConvKind::kConv);
}

Status prepareConv2D(OperationContext& ctx) { return prepareConv(ctx, ConvKind::kConv); }

Status executeConv2D(OperationContext& ctx) { return executeDirectConv(ctx, ConvKind::kConv); }

}  // namespace nncosim::ops::conv
