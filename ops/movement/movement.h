// Registration hooks of the movement operations, one per source file (register.cc
// calls them all).
#pragma once

#include "ops/registry.h"

namespace nncosim::ops::movement {

void registerArgMinMax(OperationTable& t);        // ARGMAX, ARGMIN
void registerBatchToSpace(OperationTable& t);     // BATCH_TO_SPACE_ND
void registerChannelShuffle(OperationTable& t);   // CHANNEL_SHUFFLE
void registerConcatenation(OperationTable& t);    // CONCATENATION
void registerDepthSpace(OperationTable& t);       // DEPTH_TO_SPACE, SPACE_TO_DEPTH
void registerEmbeddingLookup(OperationTable& t);  // EMBEDDING_LOOKUP
void registerExpandDims(OperationTable& t);       // EXPAND_DIMS
void registerFill(OperationTable& t);             // FILL
void registerGather(OperationTable& t);           // GATHER
void registerHashtableLookup(OperationTable& t);  // HASHTABLE_LOOKUP
void registerMean(OperationTable& t);             // MEAN
void registerMirrorPad(OperationTable& t);        // MIRROR_PAD
void registerPack(OperationTable& t);             // PACK
void registerPad(OperationTable& t);              // PAD, PAD_V2
void registerRank(OperationTable& t);             // RANK
void registerReduce(OperationTable& t);           // REDUCE_ALL/ANY/MAX/MIN/PROD/SUM
void registerReshape(OperationTable& t);          // RESHAPE
void registerResize(OperationTable& t);           // RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
void registerReverse(OperationTable& t);          // REVERSE
void registerSlice(OperationTable& t);            // SLICE
void registerSpaceToBatch(OperationTable& t);     // SPACE_TO_BATCH_ND
void registerSplit(OperationTable& t);            // SPLIT
void registerSqueeze(OperationTable& t);          // SQUEEZE
void registerStridedSlice(OperationTable& t);     // STRIDED_SLICE
void registerTile(OperationTable& t);             // TILE
void registerTopK(OperationTable& t);             // TOPK_V2
void registerTranspose(OperationTable& t);        // TRANSPOSE

}  // namespace nncosim::ops::movement
