// Building command streams for the NPU job protocol (docs/isa.md, "Job protocol"): a
// validated list of commands serialized to the little-endian bytes the ring holds.
#pragma once

#include <cstdint>
#include <vector>

#include "firmware/isa_generated.h"
#include "hal/result.h"

namespace nncosim::firmware {

// Validates and encodes every command; the error names the command index.
hal::Result<std::vector<CommandWords>> encodeStream(const std::vector<Command>& commands);

// Little-endian bytes of the commands, kCommandBytes each, as they sit in the ring.
std::vector<uint8_t> toBytes(const std::vector<CommandWords>& words);

// The DRAM address of ring slot `slot`.
inline uint64_t ringSlotAddress(uint64_t ringBase, uint32_t slot) {
  return (ringBase & ~uint64_t{kCommandBytes - 1}) + uint64_t{slot} * kCommandBytes;
}

}  // namespace nncosim::firmware
