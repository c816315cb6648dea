// Coalescing DMA_LOADs: a run of single-row-per-plane loads that differ only in where they
// start, by the same DRAM and buffer steps each time, is one load with those steps as its
// row strides; a run of single-plane loads of the same rows so, one load with them as its
// plane strides (a few-channel image's row tiles, three filter rows each). The load engine runs one
// command at a time and pays a DRAM round trip per command, so a step that loads each row tile of a
// narrow layer separately (a pointwise layer's 512-byte A pieces) is bound by round trips, not by
// the bus.
#pragma once

#include <vector>

#include "firmware/isa_generated.h"

namespace nncosim::driver {

// Appends `d` to `out`, merged into out.back() when the two write exactly the bytes they
// would write apart (the merged rows never overlap in the buffer) and read the same DRAM
// bytes. Callers merge only loads from one DRAM tensor: a command is relocated by its
// first row's address.
void appendCoalesced(std::vector<firmware::DmaLoad>& out, const firmware::DmaLoad& d);

}  // namespace nncosim::driver
