#pragma once
// Resident weights in pieces: a job's first GEMMs wait for the weights they read, not for
// all of them.
//
// A job's first step loads its weights (a phase's channel tiles, one contiguous DMA_LOAD
// into WGT) with its other operands, and its first compute waits for one load->compute
// token pushed by the last of those loads: so the first GEMM waits for every tile's
// weights (64 KiB, 4 k cycles of DMA for a 256 x 256 pointwise layer) although it reads one
// tile's. Split, the load becomes pieces behind the step's other loads, each pushing a
// token of its own that the first GEMM reading it pops: piece 0 (the first tile read) with
// the step's token, then pieces of 3, 12, 48 ... tiles, each loading while the tiles before
// it compute.
//
// Tokens pair in order (docs/isa.md): the pieces' pushes follow the step's token and precede
// the next group's in the load queue, and their pops follow the step's first compute and
// precede the next token-waiting compute in the compute queue. A GEMM reading bytes of
// several pieces waits for the last of them (pieces merge where one command would need two
// pops). Streams this does not fit (no contiguous WGT load in the first group, weights read
// out of order past the group, a first group that is not a job's first) stay as they are.
#include <vector>

#include "firmware/isa_generated.h"

namespace nncosim::driver {

// Splits the resident weight load of `job`'s first load->compute group in place (a job
// ending with END, its tokens balanced). Returns the DMA_LOADs added (0: left as it was).
// `cols`: the array's columns (a GEMM's weight rows are that many elements apart).
size_t splitFirstWeightLoad(std::vector<firmware::Command>& job, uint32_t cols);

}  // namespace nncosim::driver
