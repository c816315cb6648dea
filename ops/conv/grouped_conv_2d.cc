// GROUPED_CONV_2D: NNAPI signature and shape handling in conv_args.cc, kernel in conv_kernels.h.
#include "ops/conv/conv_args.h"
#include "ops/conv/conv_ops.h"
#include "ops/conv/direct_conv.h"

namespace nncosim::ops::conv {

Status validateGroupedConv2D(const OperationContext& ctx) {
  return validateConvOperands(ctx, ConvKind::kGrouped);
}

Status prepareGroupedConv2D(OperationContext& ctx) { return prepareConv(ctx, ConvKind::kGrouped); }

Status executeGroupedConv2D(OperationContext& ctx) {
  return executeDirectConv(ctx, ConvKind::kGrouped);
}

}  // namespace nncosim::ops::conv
