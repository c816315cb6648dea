// stridedCopy: gathers a strided box of an N-D tensor (used by SLICE, STRIDED_SLICE and
// REVERSE).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nncosim::ops::movement {

// out[i0, ..., in] = in[begin0 + i0 * step0, ...] for ik < count[k]. Every index must be
// inside inDims (callers check).
void stridedCopy(const uint8_t* in, const std::vector<uint32_t>& inDims,
                 const std::vector<int64_t>& begin, const std::vector<int64_t>& step,
                 const std::vector<uint32_t>& count, size_t elemSize, uint8_t* out);

}  // namespace nncosim::ops::movement
