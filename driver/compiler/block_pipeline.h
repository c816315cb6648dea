#pragma once
// Blocks of a fused depthwise + pointwise step run as one pipelined job instead of a job
// each: block k + 1's depthwise input loads while block k's pointwise GEMMs compute.
//
// Each half of each block is a balanced stream of its own (stream_builder.h). Joined in the
// order dw(0) pw(0) dw(1) pw(1) ..., every queue keeps that order, so each half's tokens
// still pair with each other, and two tokens per block boundary guard what the halves share
// across blocks:
//   - dw(k)'s last compute pushes a compute->load token that dw(k + 1)'s first load pops:
//     the next block's input overwrites the depthwise slots only once they are read;
//   - pw(k)'s last store pushes a store->compute token that dw(k + 1)'s first compute pops:
//     the next block's REQUANT_STOREs reuse OUT's slots only once they are stored.
// These pair in order only when the pointwise half carries no compute->load tokens (its
// weights and parameters load once, before its computes), so only such halves are joined;
// their loads in every block after a job's first are the first block's (checked) and become
// SYNCs carrying the same tokens: the weights stay resident. In the stream, dw(k + 1)'s
// loads up to its first token-waiting one move among pw(k)'s computes, spread evenly, so the
// dispatcher feeds them while the GEMMs run (placed after pw(k)'s computes they would be
// dispatched only once those are).
//
// Overlapped (ISA 1.14: DWCONV tiles beside GEMM tiles): block k + 1's depthwise computes
// run under block k's GEMMs instead of after them. The caller gives the halves of
// consecutive blocks their own copy of the tensor between them in INP and the depthwise
// half its own part of ACC, so nothing block k's GEMMs read or write is touched. In the
// stream, dw(k + 1)'s commands go among pw(k)'s computes after its last token-waiting one:
// its loads that wait on nothing of its own first, the rest (in their order) spread evenly
// over all of them or a later part (overlapFrom), so its DWCONVs find their input loaded. The
// store->compute token of pw(k)'s last store is then popped by pw(k + 1)'s first REQUANT_STORE (the
// first to reuse OUT's slots) instead of dw(k + 1)'s first compute, which would wait for
// block k to finish.
#include <cstdint>
#include <optional>
#include <vector>

#include "firmware/isa_generated.h"
#include "hal/result.h"

namespace nncosim::driver {

// overlapFrom: overlapped, dw(k + 1)'s commands past its early loads go among pw(k)'s
// computes from this share of them on (0: all of them, 0.5: the second half); none: not
// overlapped.
// depthwise[k], pointwise[k]: block k's halves, relocated into one buffer space, each a
// whole job with its END. Returns the blocks as jobs of at most maxJobCommands commands (0:
// one job), each ending with its last pointwise half's END; fails, naming why, when the
// halves cannot be joined (the caller keeps a job per block).
hal::Result<std::vector<firmware::Command>> pipelineBlocks(
    const std::vector<std::vector<firmware::Command>>& depthwise,
    const std::vector<std::vector<firmware::Command>>& pointwise, uint32_t maxJobCommands,
    std::optional<double> overlapFrom = std::nullopt);

}  // namespace nncosim::driver
