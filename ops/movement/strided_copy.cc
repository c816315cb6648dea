#include "ops/movement/strided_copy.h"

#include <cstring>

namespace nncosim::ops::movement {

void stridedCopy(const uint8_t* in, const std::vector<uint32_t>& inDims,
                 const std::vector<int64_t>& begin, const std::vector<int64_t>& step,
                 const std::vector<uint32_t>& count, size_t elemSize, uint8_t* out) {
  const size_t rank = inDims.size();
  if (rank == 0) {
    std::memcpy(out, in, elemSize);
    return;
  }
  uint64_t total = 1;
  for (uint32_t c : count) total *= c;
  if (total == 0) return;
  // Element strides of the input, and the start offset.
  std::vector<int64_t> stride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * inDims[d];
  int64_t src = 0;
  for (size_t d = 0; d < rank; ++d) src += begin[d] * stride[d];
  std::vector<uint32_t> idx(rank, 0);
  const size_t last = rank - 1;
  const int64_t lastStep = step[last] * stride[last];
  const bool contiguous = lastStep == 1;
  uint8_t* dst = out;
  for (uint64_t o = 0; o < total; o += count[last]) {
    if (contiguous) {
      std::memcpy(dst, in + src * elemSize, count[last] * elemSize);
      dst += count[last] * elemSize;
    } else {
      int64_t s = src;
      for (uint32_t k = 0; k < count[last]; ++k, s += lastStep, dst += elemSize)
        std::memcpy(dst, in + s * elemSize, elemSize);
    }
    size_t d = last;
    while (d > 0) {
      --d;
      src += step[d] * stride[d];
      if (++idx[d] < count[d]) break;
      src -= step[d] * stride[d] * count[d];
      idx[d] = 0;
    }
  }
}

}  // namespace nncosim::ops::movement
