// The densify unit's metadata descriptor in device memory (the layout rtl/nnc_densify.sv
// loads; docs/rtl-datapath.md is to describe it). All words are little-endian 32-bit.
//
//   header, 8 words                      per level l (n + k levels), 8 words each
//   +0  levels (n + k)                   +0  traversal order[l]
//   +1  block levels k                   +1  format (0 DENSE, 1 SPARSE_CSR)
//   +2  values count                     +2  dimension[l]
//   +3  fill value (the zero point)      +3  block map[l] (l < k; else 0)
//   +4..7  reserved (0)                  +4  segments address (0 when DENSE)
//                                        +5  segments count
//   The element size, the values and     +6  indices address
//   output addresses and the output      +7  indices count
//   size come from the DENSIFY command.
//
// The arrays (segments, indices) are int32 arrays elsewhere in DRAM. The compiler lays a
// descriptor and its arrays out in one buffer; `addressWords` lists the word positions
// holding DRAM addresses so that the buffer can be relocated.
#pragma once

#include <cstdint>
#include <vector>

#include "hal/result.h"
#include "ops/densify/densify_walker.h"

namespace nncosim::driver {

inline constexpr uint32_t kDensifyHeaderWords = 8;
inline constexpr uint32_t kDensifyLevelWords = 8;
inline constexpr uint32_t kDensifyMaxLevels = 8;

// The densify unit's error codes (ERR_INFO of densify_meta; rtl/nnc_pkg.sv densify_err_e).
enum class DensifyError : uint32_t {
  kOk = 0,
  kRank = 1,
  kElemSize = 2,
  kTraversal = 3,
  kBlockMap = 4,
  kFormat = 5,
  kDimension = 6,
  kSegment = 7,
  kIndex = 8,
  kValues = 9,
  kOutput = 10,
  kBus = 11,
};

struct DensifyImage {
  std::vector<uint8_t> bytes;          // descriptor followed by the arrays
  std::vector<uint32_t> addressWords;  // byte offsets of words holding DRAM addresses
};

// Lays out `format` at DRAM address `base` (the image's own address), pointing at the
// values and the output. elemLog2: 0, 1 or 2.
hal::Result<DensifyImage> buildDensifyImage(const ops::SparseFormat& format, uint32_t base,
                                            uint32_t elemLog2, uint32_t valuesAddress,
                                            uint32_t valueCount, uint32_t outputAddress,
                                            uint32_t outputCount, uint32_t fill);

}  // namespace nncosim::driver
