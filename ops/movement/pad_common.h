// Constant and mirror padding shared by PAD, PAD_V2, MIRROR_PAD and SPACE_TO_BATCH_ND.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ops/operation.h"

namespace nncosim::ops::movement {

struct Paddings {
  std::vector<uint32_t> before, after;
};

// Reads a [rank, 2] TENSOR_INT32 paddings input (non-negative values).
Result<Paddings> readPaddings(const OperationContext& ctx, size_t i, uint32_t rank);

// Output dims = before + input + after.
std::vector<uint32_t> paddedDims(const std::vector<uint32_t>& dims, const Paddings& p);

// Writes `in` padded with copies of the element at `padValue`.
void padConstant(const uint8_t* in, const std::vector<uint32_t>& inDims, const Paddings& p,
                 const uint8_t* padValue, size_t elemSize, uint8_t* out);

}  // namespace nncosim::ops::movement
