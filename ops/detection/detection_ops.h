// Registration hooks of the detection family, one per operation file.
#pragma once

#include "ops/registry.h"

namespace nncosim::ops {

void registerAxisAlignedBboxTransform(OperationTable& t);
void registerBoxWithNmsLimit(OperationTable& t);
void registerDetectionPostprocessing(OperationTable& t);
void registerGenerateProposals(OperationTable& t);
void registerHeatmapMaxKeypoint(OperationTable& t);
void registerInstanceNormalization(OperationTable& t);
void registerL2Normalization(OperationTable& t);
void registerLocalResponseNormalization(OperationTable& t);
void registerLshProjection(OperationTable& t);
void registerRandomMultinomial(OperationTable& t);
void registerRoiAlign(OperationTable& t);
void registerRoiPooling(OperationTable& t);

}  // namespace nncosim::ops
