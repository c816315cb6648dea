// Registers the movement operations.
#include "ops/movement/movement.h"
#include "ops/registry.h"

namespace nncosim::ops {

void registerMovementOperations(OperationTable& t) {
  using namespace movement;  // NOLINT: the family's own hooks
  registerArgMinMax(t);
  registerBatchToSpace(t);
  registerChannelShuffle(t);
  registerConcatenation(t);
  registerDepthSpace(t);
  registerEmbeddingLookup(t);
  registerExpandDims(t);
  registerFill(t);
  registerGather(t);
  registerHashtableLookup(t);
  registerMean(t);
  registerMirrorPad(t);
  registerPack(t);
  registerPad(t);
  registerRank(t);
  registerReduce(t);
  registerReshape(t);
  registerResize(t);
  registerReverse(t);
  registerSlice(t);
  registerSpaceToBatch(t);
  registerSplit(t);
  registerSqueeze(t);
  registerStridedSlice(t);
  registerTile(t);
  registerTopK(t);
  registerTranspose(t);
}

}  // namespace nncosim::ops
