#include "ops/movement/pad_common.h"

#include "ops/movement/common.h"

namespace nncosim::ops::movement {

Result<Paddings> readPaddings(const OperationContext& ctx, size_t i, uint32_t rank) {
  const Shape& s = ctx.inputShape(i);
  if (s.rank() != 2 || s.dim(0) != rank || s.dim(1) != 2)
    return hal::fail("input ", i, " (paddings): expected shape [", rank, ", 2], got ",
                     toString(s.dimensions));
  const std::vector<int32_t> v = int32Values(ctx, i);
  Paddings p;
  for (uint32_t d = 0; d < rank; ++d) {
    if (v[2 * d] < 0 || v[2 * d + 1] < 0)
      return hal::fail("input ", i, " (paddings): dimension ", d, " has negative padding [",
                       v[2 * d], ", ", v[2 * d + 1], "]");
    if (uint64_t{ctx.inputShape(0).dim(d)} + v[2 * d] + v[2 * d + 1] > UINT32_MAX)
      return hal::fail("input ", i, " (paddings): dimension ", d, " overflows uint32");
    p.before.push_back(static_cast<uint32_t>(v[2 * d]));
    p.after.push_back(static_cast<uint32_t>(v[2 * d + 1]));
  }
  return p;
}

std::vector<uint32_t> paddedDims(const std::vector<uint32_t>& dims, const Paddings& p) {
  std::vector<uint32_t> out(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) out[d] = p.before[d] + dims[d] + p.after[d];
  return out;
}

void padConstant(const uint8_t* in, const std::vector<uint32_t>& inDims, const Paddings& p,
                 const uint8_t* padValue, size_t es, uint8_t* out) {
  const std::vector<uint32_t> outDims = paddedDims(inDims, p);
  const size_t rank = inDims.size();
  fillElements(out, padValue, product(outDims, 0, rank), es);
  if (rank == 0) {
    copyElements(out, in, 1, es);
    return;
  }
  const uint64_t total = product(inDims, 0, rank);
  if (total == 0) return;
  std::vector<uint64_t> outStride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) outStride[d - 1] = outStride[d] * outDims[d];
  uint64_t dst = 0;
  for (size_t d = 0; d < rank; ++d) dst += p.before[d] * outStride[d];
  const size_t last = rank - 1;
  const uint32_t row = inDims[last];
  std::vector<uint32_t> idx(rank, 0);
  for (uint64_t src = 0; src < total; src += row) {
    copyElements(out + dst * es, in + src * es, row, es);
    size_t d = last;
    while (d > 0) {
      --d;
      dst += outStride[d];
      if (++idx[d] < inDims[d]) break;
      dst -= outStride[d] * inDims[d];
      idx[d] = 0;
    }
  }
}

}  // namespace nncosim::ops::movement
