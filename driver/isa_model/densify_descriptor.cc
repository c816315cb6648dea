#include "driver/isa_model/densify_descriptor.h"

#include <cstring>

namespace nncosim::driver {

hal::Result<DensifyImage> buildDensifyImage(const ops::SparseFormat& format, uint32_t base,
                                            uint32_t elemLog2, uint32_t valuesAddress,
                                            uint32_t valueCount, uint32_t outputAddress,
                                            uint32_t outputCount, uint32_t fill) {
  const size_t levels = format.traversalOrder.size();
  if (levels == 0 || levels > kDensifyMaxLevels)
    return hal::fail("densify descriptor: ", levels, " levels (the unit takes 1..",
                     kDensifyMaxLevels, ")");
  if (format.dimFormat.size() != levels || format.dimensions.size() != levels ||
      format.segments.size() != levels || format.indices.size() != levels ||
      format.blockMap.size() > levels)
    return hal::fail("densify descriptor: per-level arrays disagree with ", levels, " levels");
  if (elemLog2 > 2) return hal::fail("densify descriptor: element size 2^", elemLog2, " bytes");

  std::vector<uint32_t> words((kDensifyHeaderWords + kDensifyLevelWords * levels), 0);
  // The arrays follow the descriptor, segments then indices per level.
  std::vector<uint32_t> arrays;
  DensifyImage image;
  const uint32_t arraysBase = static_cast<uint32_t>(words.size() * 4);
  auto put = [&](uint32_t word, uint32_t value, bool isAddress) {
    words[word] = value;
    if (isAddress) image.addressWords.push_back(word * 4);
  };
  // The header as nnc_densify.sv reads it (docs/rtl-datapath.md): the element size and
  // the values/output addresses come from the DENSIFY command, words 4..7 are reserved.
  (void)valuesAddress, (void)outputAddress, (void)outputCount;
  put(0, static_cast<uint32_t>(levels), false);
  put(1, static_cast<uint32_t>(format.blockMap.size()), false);
  put(2, valueCount, false);
  put(3, fill, false);
  for (size_t l = 0; l < levels; ++l) {
    const uint32_t w = kDensifyHeaderWords + kDensifyLevelWords * static_cast<uint32_t>(l);
    put(w + 0, static_cast<uint32_t>(format.traversalOrder[l]), false);
    put(w + 1, static_cast<uint32_t>(format.dimFormat[l]), false);
    put(w + 2, static_cast<uint32_t>(format.dimensions[l]), false);
    put(w + 3, l < format.blockMap.size() ? static_cast<uint32_t>(format.blockMap[l]) : 0, false);
    const std::vector<int32_t>& seg = format.segments[l];
    const std::vector<int32_t>& idx = format.indices[l];
    // DENSE levels carry no arrays: address 0 and count 0, as the unit requires.
    const bool hasSeg = !seg.empty(), hasIdx = !idx.empty();
    put(w + 4, hasSeg ? base + arraysBase + static_cast<uint32_t>(arrays.size() * 4) : 0, hasSeg);
    put(w + 5, static_cast<uint32_t>(seg.size()), false);
    for (int32_t v : seg) arrays.push_back(static_cast<uint32_t>(v));
    put(w + 6, hasIdx ? base + arraysBase + static_cast<uint32_t>(arrays.size() * 4) : 0, hasIdx);
    put(w + 7, static_cast<uint32_t>(idx.size()), false);
    for (int32_t v : idx) arrays.push_back(static_cast<uint32_t>(v));
  }
  words.insert(words.end(), arrays.begin(), arrays.end());
  image.bytes.resize(words.size() * 4);
  for (size_t i = 0; i < words.size(); ++i)
    for (int b = 0; b < 4; ++b) image.bytes[i * 4 + b] = static_cast<uint8_t>(words[i] >> (8 * b));
  return image;
}

}  // namespace nncosim::driver
