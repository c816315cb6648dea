// Arithmetic progressions modulo 2^32: which term first falls in an address range.
//
// Why it exists: a DMA command's rows start at (dram_addr + z*stride2 + y*stride1) mod 2^32
// with up to 65535 x 4095 rows, so checking every row against the DRAM window costs as much
// as the transfer. Per plane the row starts are one progression, and the first term in a
// range comes from a Euclid-like recursion in O(log 2^32) steps instead.
#pragma once

#include <cstdint>

namespace nncosim::driver {

// The smallest i in [0, count) with lo <= (start + i*step) mod 2^32 <= hi, or count when no
// term is in the range. lo <= hi < 2^32.
uint64_t firstTermInRange(uint32_t start, uint32_t step, uint64_t count, uint32_t lo, uint32_t hi);

// The smallest x >= 0 with lo <= (a*x) mod m <= hi, or kNoTerm. 1 <= m <= 2^32, a < m,
// lo <= hi < m. Exposed for the tests, which check it against a walk for small m.
inline constexpr uint64_t kNoTerm = ~uint64_t{0};
uint64_t firstMultipleInRange(uint64_t a, uint64_t m, uint64_t lo, uint64_t hi);

}  // namespace nncosim::driver
