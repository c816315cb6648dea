#pragma once
// The halves of a chain of fused depthwise + pointwise pairs (lowerFusedChain) as one job:
// dw(0) pw(0) dw(1) pw(1) ... dw(n-1) pw(n-1), each pointwise half but the last writing its
// rows into the next depthwise layer's padded input in INP.
//
// Each half is a balanced stream of its own (stream_builder.h); joined in order, every queue
// keeps that order, so each half's tokens still pair with each other. What the halves share
// across a link (pair i -> pair i + 1) is guarded by two compute->load tokens, placed so that
// the pushes and pops of that channel stay in the same order:
//   - dw(i)'s last compute pushes one that the padding fills of the next depthwise input pop,
//     and those fills go among pw(i)'s loads before its first token-waiting one: the padding
//     (another zero point) is written only once dw(i) has read its own input there, and while
//     pw(i)'s GEMMs run;
//   - pw(i)'s last compute pushes one that dw(i + 1)'s first load pops: the next pair's
//     weights and parameters overwrite WGT's and PRM's slots only once pw(i) is done with
//     them (the halves of every pair share the same windows).
// A compute that carries a push already gets a SYNC behind it for the link's token; a load
// queue without a free first command, a SYNC ahead of it.
#include <vector>

#include "firmware/isa_generated.h"
#include "hal/result.h"

namespace nncosim::driver {

// halves[2i], halves[2i + 1]: pair i's depthwise and pointwise halves, relocated into one
// buffer space, each a whole job with its END. fills[i]: the padding of pair i + 1's
// depthwise input (load queue, no tokens). Returns one job ending with the last half's END.
hal::Result<std::vector<firmware::Command>> joinChain(
    const std::vector<std::vector<firmware::Command>>& halves,
    const std::vector<std::vector<firmware::Command>>& fills);

}  // namespace nncosim::driver
