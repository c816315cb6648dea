// Registers the detection operations.
#include "ops/detection/detection_ops.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerDetectionOperations(OperationTable& t) {
  registerAxisAlignedBboxTransform(t);
  registerBoxWithNmsLimit(t);
  registerDetectionPostprocessing(t);
  registerGenerateProposals(t);
  registerHeatmapMaxKeypoint(t);
  registerInstanceNormalization(t);
  registerL2Normalization(t);
  registerLocalResponseNormalization(t);
  registerLshProjection(t);
  registerRandomMultinomial(t);
  registerRoiAlign(t);
  registerRoiPooling(t);
}

}  // namespace nncosim::ops
