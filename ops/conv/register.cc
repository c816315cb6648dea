// Registers the conv operations: convolutions, fully connected, batch matmul, pooling.
#include "ops/conv/conv_ops.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerConvOperations(OperationTable& t) {
  using hal::OperationType;
  t.add(OperationDef{OperationType::CONV_2D, &conv::validateConv2D, &conv::prepareConv2D,
                     &conv::executeConv2D});
  t.add(OperationDef{OperationType::DEPTHWISE_CONV_2D, &conv::validateDepthwiseConv2D,
                     &conv::prepareDepthwiseConv2D, &conv::executeDepthwiseConv2D});
  t.add(OperationDef{OperationType::GROUPED_CONV_2D, &conv::validateGroupedConv2D,
                     &conv::prepareGroupedConv2D, &conv::executeGroupedConv2D});
}

}  // namespace nncosim::ops
