// The operations of the conv family, registered by register.cc.
#pragma once

#include "ops/operation.h"

namespace nncosim::ops::conv {

#define NNC_CONV_DECLARE_OP(Name)                     \
  Status validate##Name(const OperationContext& ctx); \
  Status prepare##Name(OperationContext& ctx);        \
  Status execute##Name(OperationContext& ctx);

NNC_CONV_DECLARE_OP(Conv2D)
NNC_CONV_DECLARE_OP(DepthwiseConv2D)
NNC_CONV_DECLARE_OP(GroupedConv2D)
NNC_CONV_DECLARE_OP(TransposeConv2D)
NNC_CONV_DECLARE_OP(FullyConnected)
NNC_CONV_DECLARE_OP(BatchMatmul)
NNC_CONV_DECLARE_OP(AveragePool2D)
NNC_CONV_DECLARE_OP(MaxPool2D)
NNC_CONV_DECLARE_OP(L2Pool2D)

#undef NNC_CONV_DECLARE_OP

// MAC counts (conv_macs.cc).
uint64_t macsConv2D(const MacQuery& q);
uint64_t macsDepthwiseConv2D(const MacQuery& q);
uint64_t macsTransposeConv2D(const MacQuery& q);
uint64_t macsFullyConnected(const MacQuery& q);
uint64_t macsBatchMatmul(const MacQuery& q);

}  // namespace nncosim::ops::conv
