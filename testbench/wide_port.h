// Bit fields of a Verilator wide port (an array of 32-bit words, lsb in word 0): what the
// harnesses of multi-lane blocks use to write one lane's operand and read one lane's result.
#pragma once

#include <algorithm>
#include <cstdint>

namespace nncosim::testbench {

// Writes the low `width` bits (<= 64) of v at bit `lsb`.
template <typename Wide>
void putBits(Wide& w, unsigned lsb, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width;) {
    const unsigned bit = lsb + i, word = bit / 32, off = bit % 32;
    const unsigned n = std::min(width - i, 32 - off);
    const uint32_t mask = (n == 32 ? ~0u : ((1u << n) - 1)) << off;
    w[word] = (w[word] & ~mask) | ((static_cast<uint32_t>(v >> i) << off) & mask);
    i += n;
  }
}

// Reads `width` bits (<= 64) at bit `lsb`, zero-extended.
template <typename Wide>
uint64_t getBits(const Wide& w, unsigned lsb, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    v |= static_cast<uint64_t>((w[bit / 32] >> (bit % 32)) & 1u) << i;
  }
  return v;
}

}  // namespace nncosim::testbench
