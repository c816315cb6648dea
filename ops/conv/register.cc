// Registers the conv operations: convolutions, fully connected, batch matmul, pooling.
#include "ops/conv/conv_ops.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerConvOperations(OperationTable& t) {
  using hal::OperationType;
  t.add(OperationDef{OperationType::CONV_2D, &conv::validateConv2D, &conv::prepareConv2D,
                     &conv::executeConv2D, &conv::macsConv2D});
  t.add(OperationDef{OperationType::DEPTHWISE_CONV_2D, &conv::validateDepthwiseConv2D,
                     &conv::prepareDepthwiseConv2D, &conv::executeDepthwiseConv2D,
                     &conv::macsDepthwiseConv2D});
  t.add(OperationDef{OperationType::GROUPED_CONV_2D, &conv::validateGroupedConv2D,
                     &conv::prepareGroupedConv2D, &conv::executeGroupedConv2D, &conv::macsConv2D});
  t.add(OperationDef{OperationType::TRANSPOSE_CONV_2D, &conv::validateTransposeConv2D,
                     &conv::prepareTransposeConv2D, &conv::executeTransposeConv2D,
                     &conv::macsTransposeConv2D});
  t.add(OperationDef{OperationType::FULLY_CONNECTED, &conv::validateFullyConnected,
                     &conv::prepareFullyConnected, &conv::executeFullyConnected,
                     &conv::macsFullyConnected});
  t.add(OperationDef{OperationType::BATCH_MATMUL, &conv::validateBatchMatmul,
                     &conv::prepareBatchMatmul, &conv::executeBatchMatmul, &conv::macsBatchMatmul});
  t.add(OperationDef{OperationType::AVERAGE_POOL_2D, &conv::validateAveragePool2D,
                     &conv::prepareAveragePool2D, &conv::executeAveragePool2D});
  t.add(OperationDef{OperationType::MAX_POOL_2D, &conv::validateMaxPool2D, &conv::prepareMaxPool2D,
                     &conv::executeMaxPool2D});
  t.add(OperationDef{OperationType::L2_POOL_2D, &conv::validateL2Pool2D, &conv::prepareL2Pool2D,
                     &conv::executeL2Pool2D});
}

}  // namespace nncosim::ops
