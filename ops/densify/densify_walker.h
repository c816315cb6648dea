// DensifyWalker: the sparse tensor format of NNAPI's DENSIFY (experimental operation 20000,
// a TACO-style format, as TFLite's sparsity parameters), validated once and then walked to
// give every stored value its offset in the dense tensor.
//
// The RTL densify unit is checked against this class, so it states the format exactly:
//
// A dense tensor of rank n, optionally cut into blocks of rank k (0 <= k <= n), is traversed
// over n + k "levels". Every per-level array below is indexed by traversal position.
//   traversalOrder  n + k entries; the first n are a permutation of [0, n) (the block-grid
//                   dimensions), the last k a permutation of [n, n + k) (block dimension b is
//                   n + b).
//   blockMap        k entries, strictly increasing, in [0, n): block dimension b splits dense
//                   dimension blockMap[b]. Empty when the tensor is not block sparse.
//   dimFormat       n + k entries, DENSE (0) or SPARSE_CSR (1).
//   dimensions      n + k sizes, >= 1: the size of the dimension traversed at each level.
//   segments,       per level; both empty for a DENSE level. For a SPARSE_CSR level they are
//   indices         the CSR row pointers and column indices: with P "positions" at the level
//                   above (P = 1 for level 0), segments has P + 1 entries, starts at 0, never
//                   decreases and ends at indices.size(); indices[segments[q] ..
//                   segments[q + 1]) are the coordinates present under position q, each in
//                   [0, dimensions[level]) and distinct within the segment.
// Positions: a DENSE level of size D gives parent position q the children q * D + c for
// c in [0, D) (coordinate c); a SPARSE_CSR level gives it the children j in
// [segments[q], segments[q + 1]) (coordinate indices[j]). The positions of the last level
// are the indices of the stored values, so the format stores exactly as many values as the
// last level has positions.
// Dense shape: dense dimension traversalOrder[p] (p < n) has size dimensions[p], multiplied
// by the size of the block dimension that blockMap maps onto it, if any. A value's dense
// coordinate in dimension d is gridCoordinate * blockSize + blockCoordinate.
//
// (AOSP's reference looks the block size up as dimensions[traversalOrder[n + b]], which is the
// same thing whenever the block part of the traversal order is not permuted; this class uses
// the size of the level that actually traverses block dimension b, which is what AOSP's
// output shape uses too.)
#pragma once

#include <cstdint>
#include <vector>

#include "hal/result.h"

namespace nncosim::ops {

enum class DimFormat : int32_t { kDense = 0, kSparseCsr = 1 };

struct SparseFormat {
  std::vector<int32_t> traversalOrder;
  std::vector<int32_t> blockMap;
  std::vector<int32_t> dimFormat;
  std::vector<int32_t> dimensions;
  std::vector<std::vector<int32_t>> segments;  // one per level, empty for DENSE levels
  std::vector<std::vector<int32_t>> indices;   // one per level, empty for DENSE levels
};

class DensifyWalker {
 public:
  // The largest dense tensor accepted, in elements (the HAL's limit).
  static constexpr uint64_t kMaxDenseElements = uint64_t{1} << 31;

  // Validates every rule of the format above; errors name the array, the position and the
  // rule that is broken.
  static hal::Result<DensifyWalker> create(SparseFormat format);

  const SparseFormat& format() const { return format_; }
  size_t levels() const { return format_.traversalOrder.size(); }
  // The dense tensor's dimensions (rank n) and element count.
  const std::vector<uint32_t>& denseShape() const { return denseShape_; }
  uint64_t denseElements() const { return denseElements_; }
  // How many values the format stores (positions of the last level).
  uint64_t numValues() const { return numValues_; }
  // A value's dense (row-major) offset is the sum over levels of its coordinate at that
  // level times the level's weight.
  const std::vector<uint64_t>& levelWeights() const { return weights_; }

  // Calls fn(valueIndex, denseOffset) for every stored value, in storage order.
  template <typename Fn>
  void forEach(Fn&& fn) const;
  // denseOffsets()[i] is the dense offset of stored value i.
  std::vector<uint64_t> denseOffsets() const;

 private:
  DensifyWalker() = default;

  SparseFormat format_;
  std::vector<uint32_t> denseShape_;
  uint64_t denseElements_ = 0;
  uint64_t numValues_ = 0;
  std::vector<uint64_t> weights_;
};

template <typename Fn>
void DensifyWalker::forEach(Fn&& fn) const {
  const size_t n = levels();
  if (n == 0 || numValues_ == 0) return;
  // Depth-first over the levels without recursion: at each level the current position, the
  // end of the parent's range, the first position of that range (for dense coordinates)
  // and the offset accumulated by the levels above.
  std::vector<uint64_t> pos(n), end(n), first(n), partial(n);
  auto enter = [&](size_t l, uint64_t parent) {
    if (format_.dimFormat[l] == static_cast<int32_t>(DimFormat::kDense)) {
      const uint64_t size = static_cast<uint64_t>(format_.dimensions[l]);
      first[l] = pos[l] = parent * size;
      end[l] = first[l] + size;
    } else {
      pos[l] = static_cast<uint64_t>(format_.segments[l][parent]);
      end[l] = static_cast<uint64_t>(format_.segments[l][parent + 1]);
    }
  };
  enter(0, 0);
  partial[0] = 0;
  size_t l = 0;
  for (;;) {
    if (pos[l] == end[l]) {
      if (l == 0) return;
      --l;
      ++pos[l];
      continue;
    }
    const uint64_t coord = format_.dimFormat[l] == static_cast<int32_t>(DimFormat::kDense)
                               ? pos[l] - first[l]
                               : static_cast<uint64_t>(format_.indices[l][pos[l]]);
    const uint64_t offset = partial[l] + coord * weights_[l];
    if (l + 1 == n) {
      fn(pos[l], offset);
      ++pos[l];
      continue;
    }
    partial[l + 1] = offset;
    enter(l + 1, pos[l]);
    ++l;
  }
}

}  // namespace nncosim::ops
