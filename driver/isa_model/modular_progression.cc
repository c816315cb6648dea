#include "driver/isa_model/modular_progression.h"

namespace nncosim::driver {

// The classic reduction (each call swaps the roles of a and m, as Euclid's algorithm does,
// so the depth is O(log m)):
//  - lo == 0: x = 0.
//  - some multiple of a lies in [lo, hi] without wrapping: the first one, ceil(lo / a).
//  - otherwise [lo, hi] lies strictly between two multiples of a, lo = k*a + l', hi = k*a + h'
//    with 1 <= l' <= h' < a. A solution wraps: a*x = m*y + v with v in [lo, hi], y >= 1, and
//    such an x exists exactly when (m*y) mod a is in [a - h', a - l']: a progression again,
//    now of m mod a modulo a. x grows with y, so the smallest y gives the smallest x,
//    x = ceil((lo + m*y) / a).
uint64_t firstMultipleInRange(uint64_t a, uint64_t m, uint64_t lo, uint64_t hi) {
  if (lo == 0) return 0;
  if (a == 0) return kNoTerm;
  const uint64_t k = (lo + a - 1) / a;  // lo < 2^32: no overflow
  if (k * a <= hi) return k;
  const uint64_t y = firstMultipleInRange(m % a, a, a - hi % a, a - lo % a);
  if (y == kNoTerm) return kNoTerm;
  // ceil((lo + m*y) / a) without the 64-bit overflow of m*y (y < a < 2^32):
  // m*y = (m/a)*a*y + (m%a)*y, and (m%a)*y + lo + a - 1 < 2^64.
  return (m / a) * y + ((m % a) * y + lo + a - 1) / a;
}

uint64_t firstTermInRange(uint32_t start, uint32_t step, uint64_t count, uint32_t lo, uint32_t hi) {
  if (count == 0) return 0;
  // Terms relative to start: i*step mod 2^32 in [lo - start, hi - start] (mod 2^32). When
  // that range wraps, start itself is in [lo, hi].
  const uint32_t l = lo - start, h = hi - start;
  if (l > h) return 0;
  const uint64_t x = firstMultipleInRange(step, uint64_t{1} << 32, l, h);
  return x < count ? x : count;
}

}  // namespace nncosim::driver
