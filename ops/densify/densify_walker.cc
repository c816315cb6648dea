#include "ops/densify/densify_walker.h"

#include <algorithm>
#include <string>

namespace nncosim::ops {
namespace {

using hal::fail;

std::string list(const std::vector<int32_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    if (i == 16) return s + "... (" + std::to_string(v.size()) + " entries)]";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// Checks that v[from, to) is a permutation of [from, to).
hal::Status checkPermutation(const std::vector<int32_t>& v, size_t from, size_t to,
                             const char* part) {
  std::vector<bool> seen(to - from, false);
  for (size_t p = from; p < to; ++p) {
    const int32_t x = v[p];
    if (x < static_cast<int64_t>(from) || x >= static_cast<int64_t>(to))
      return fail("traversal order ", list(v), ": entry ", p, " is ", x, ", but the ", part,
                  " entries must be a permutation of [", from, ", ", to, ")");
    if (seen[x - from])
      return fail("traversal order ", list(v), ": entry ", p, " repeats dimension ", x);
    seen[x - from] = true;
  }
  return hal::Status::Ok();
}

}  // namespace

hal::Result<DensifyWalker> DensifyWalker::create(SparseFormat f) {
  const size_t levels = f.traversalOrder.size();
  if (levels == 0) return fail("traversal order is empty (the dense tensor needs rank >= 1)");
  if (f.dimFormat.size() != levels)
    return fail("dim format has ", f.dimFormat.size(), " entries, the traversal order ", levels);
  if (f.dimensions.size() != levels)
    return fail("dimensions has ", f.dimensions.size(), " entries, the traversal order ", levels);
  f.segments.resize(levels);
  f.indices.resize(levels);
  const size_t k = f.blockMap.size();
  if (k >= levels)
    return fail("block map has ", k, " entries but the traversal order only ", levels,
                " (need at least one dense dimension and at most one block dimension each)");
  const size_t rank = levels - k;
  if (k > rank)
    return fail("block map has ", k, " entries, more than the ", rank, " dense dimensions");

  NNC_TRY(checkPermutation(f.traversalOrder, 0, rank, "first"));
  NNC_TRY(checkPermutation(f.traversalOrder, rank, levels, "block"));
  for (size_t b = 0; b < k; ++b) {
    if (f.blockMap[b] < 0 || f.blockMap[b] >= static_cast<int64_t>(rank))
      return fail("block map ", list(f.blockMap), ": entry ", b, " is ", f.blockMap[b],
                  ", outside the dense rank [0, ", rank, ")");
    if (b > 0 && f.blockMap[b] <= f.blockMap[b - 1])
      return fail("block map ", list(f.blockMap), ": entries must be strictly increasing (entry ",
                  b, ")");
  }
  for (size_t l = 0; l < levels; ++l) {
    if (f.dimFormat[l] != static_cast<int32_t>(DimFormat::kDense) &&
        f.dimFormat[l] != static_cast<int32_t>(DimFormat::kSparseCsr))
      return fail("dim format ", list(f.dimFormat), ": entry ", l, " is ", f.dimFormat[l],
                  ", expected DENSE (0) or SPARSE_CSR (1)");
    if (f.dimensions[l] < 1)
      return fail("dimensions ", list(f.dimensions), ": entry ", l, " is ", f.dimensions[l],
                  ", sizes must be >= 1");
  }

  // Dense shape: grid sizes first, then each block size multiplied into its dimension.
  DensifyWalker w;
  std::vector<uint64_t> shape(rank), blockSizeOf(rank, 1);
  for (size_t p = 0; p < rank; ++p) shape[f.traversalOrder[p]] = f.dimensions[p];
  for (size_t p = rank; p < levels; ++p) {
    const size_t d = f.blockMap[f.traversalOrder[p] - rank];
    blockSizeOf[d] = f.dimensions[p];
    shape[d] *= blockSizeOf[d];  // both factors < 2^31: no overflow
  }
  uint64_t elements = 1;
  for (size_t d = 0; d < rank; ++d) {
    elements *= shape[d];
    if (shape[d] > UINT32_MAX || elements > kMaxDenseElements)
      return fail("dense tensor is larger than ", kMaxDenseElements, " elements (dimensions ",
                  list(f.dimensions), ")");
  }
  std::vector<uint64_t> stride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * shape[d];
  w.weights_.resize(levels);
  for (size_t p = 0; p < levels; ++p) {
    if (p < rank) {
      const size_t d = f.traversalOrder[p];
      w.weights_[p] = stride[d] * blockSizeOf[d];
    } else {
      w.weights_[p] = stride[f.blockMap[f.traversalOrder[p] - rank]];
    }
  }

  // Per-level metadata. Distinct coordinates under each parent keep the positions of a level
  // within the product of the sizes above it, so `positions` never exceeds `elements`.
  uint64_t positions = 1;
  std::vector<int32_t> scratch;
  for (size_t l = 0; l < levels; ++l) {
    const auto& seg = f.segments[l];
    const auto& idx = f.indices[l];
    if (f.dimFormat[l] == static_cast<int32_t>(DimFormat::kDense)) {
      if (!seg.empty() || !idx.empty())
        return fail("level ", l, " is DENSE, so its array segments and indices must be omitted (",
                    seg.size(), " segments, ", idx.size(), " indices given)");
      positions *= static_cast<uint64_t>(f.dimensions[l]);
      continue;
    }
    if (seg.size() != positions + 1)
      return fail("level ", l, " (SPARSE_CSR): array segments has ", seg.size(),
                  " entries, expected ", positions + 1,
                  " (one per position of the level above, plus one)");
    if (seg[0] != 0)
      return fail("level ", l, " (SPARSE_CSR): array segments ", list(seg),
                  " must start at 0, not ", seg[0]);
    for (size_t q = 1; q < seg.size(); ++q)
      if (seg[q] < seg[q - 1])
        return fail("level ", l, " (SPARSE_CSR): array segments ", list(seg), " decrease at entry ",
                    q, " (", seg[q - 1], " then ", seg[q], ")");
    if (static_cast<uint64_t>(seg.back()) != idx.size())
      return fail("level ", l, " (SPARSE_CSR): array segments end at ", seg.back(),
                  " but there are ", idx.size(), " array indices");
    for (size_t j = 0; j < idx.size(); ++j)
      if (idx[j] < 0 || idx[j] >= f.dimensions[l])
        return fail("level ", l, " (SPARSE_CSR): array index ", j, " is ", idx[j],
                    ", outside the level's size [0, ", f.dimensions[l], ")");
    for (size_t q = 0; q + 1 < seg.size(); ++q) {
      if (seg[q + 1] - seg[q] < 2) continue;
      scratch.assign(idx.begin() + seg[q], idx.begin() + seg[q + 1]);
      std::sort(scratch.begin(), scratch.end());
      auto dup = std::adjacent_find(scratch.begin(), scratch.end());
      if (dup != scratch.end())
        return fail("level ", l, " (SPARSE_CSR): segment ", q, " lists index ", *dup,
                    " more than once");
    }
    positions = idx.size();
  }

  w.denseShape_.assign(shape.begin(), shape.end());
  w.denseElements_ = elements;
  w.numValues_ = positions;
  w.format_ = std::move(f);
  return w;
}

std::vector<uint64_t> DensifyWalker::denseOffsets() const {
  std::vector<uint64_t> out(numValues_);
  forEach([&](uint64_t value, uint64_t offset) { out[value] = offset; });
  return out;
}

}  // namespace nncosim::ops
