// Fingerprint64: the 64-bit string fingerprint of Google's FarmHash (its "na" variant),
// which NNAPI's LSH_PROJECTION hashes keys with. Written from the published algorithm;
// the result is the same on every platform (little-endian reads).
#pragma once

#include <cstddef>
#include <cstdint>

namespace nncosim::ops::detection {

uint64_t fingerprint64(const uint8_t* data, size_t length);

}  // namespace nncosim::ops::detection
