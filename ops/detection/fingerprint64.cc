#include "ops/detection/fingerprint64.h"

#include <utility>

namespace nncosim::ops::detection {
namespace {

// The mixing primes of the algorithm.
constexpr uint64_t kP0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t kP1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t kP2 = 0x9ae16a3b2f90404fULL;

uint64_t load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint32_t load32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

uint64_t rotr(uint64_t v, int shift) { return shift == 0 ? v : (v >> shift) | (v << (64 - shift)); }

uint64_t shiftMix(uint64_t v) { return v ^ (v >> 47); }

// Murmur-inspired mix of two 64-bit values.
uint64_t mix128(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

uint64_t hashUpTo16(const uint8_t* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = kP2 + len * 2;
    const uint64_t a = load64(s) + kP2;
    const uint64_t b = load64(s + len - 8);
    const uint64_t c = rotr(b, 37) * mul + a;
    const uint64_t d = (rotr(a, 25) + b) * mul;
    return mix128(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = kP2 + len * 2;
    const uint64_t a = load32(s);
    return mix128(len + (a << 3), load32(s + len - 4), mul);
  }
  if (len > 0) {
    const uint8_t a = s[0], b = s[len >> 1], c = s[len - 1];
    const uint32_t y = static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return shiftMix(y * kP2 ^ z * kP0) * kP2;
  }
  return kP2;
}

uint64_t hash17To32(const uint8_t* s, size_t len) {
  const uint64_t mul = kP2 + len * 2;
  const uint64_t a = load64(s) * kP1;
  const uint64_t b = load64(s + 8);
  const uint64_t c = load64(s + len - 8) * mul;
  const uint64_t d = load64(s + len - 16) * kP2;
  return mix128(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + kP2, 18) + c, mul);
}

uint64_t hash33To64(const uint8_t* s, size_t len) {
  const uint64_t mul = kP2 + len * 2;
  const uint64_t a = load64(s) * kP2;
  const uint64_t b = load64(s + 8);
  const uint64_t c = load64(s + len - 8) * mul;
  const uint64_t d = load64(s + len - 16) * kP2;
  const uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
  const uint64_t z = mix128(y, a + rotr(b + kP2, 18) + c, mul);
  const uint64_t e = load64(s + 16) * mul;
  const uint64_t f = load64(s + 24);
  const uint64_t g = (y + load64(s + len - 32)) * mul;
  const uint64_t h = (z + load64(s + len - 24)) * mul;
  return mix128(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

// Mixes 32 bytes into the running pair (a, b).
std::pair<uint64_t, uint64_t> weak32(const uint8_t* s, uint64_t a, uint64_t b) {
  const uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
  a += w;
  b = rotr(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += rotr(a, 44);
  return {a + z, b + c};
}

uint64_t hashLong(const uint8_t* s, size_t len) {
  const uint64_t seed = 81;
  uint64_t x = seed;
  uint64_t y = seed * kP1 + 113;
  uint64_t z = shiftMix(y * kP2 + 113) * kP2;
  std::pair<uint64_t, uint64_t> v{0, 0}, w{0, 0};
  x = x * kP2 + load64(s);
  const uint8_t* end = s + ((len - 1) / 64) * 64;
  const uint8_t* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = rotr(x + y + v.first + load64(s + 8), 37) * kP1;
    y = rotr(y + v.second + load64(s + 48), 42) * kP1;
    x ^= w.second;
    y += v.first + load64(s + 40);
    z = rotr(z + w.first, 33) * kP1;
    v = weak32(s, v.second * kP1, x + w.first);
    w = weak32(s + 32, z + w.second, y + load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = kP1 + ((z & 0xff) << 1);
  s = last64;
  w.first += ((len - 1) & 63);
  v.first += w.first;
  w.first += v.first;
  x = rotr(x + y + v.first + load64(s + 8), 37) * mul;
  y = rotr(y + v.second + load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + load64(s + 40);
  z = rotr(z + w.first, 33) * mul;
  v = weak32(s, v.second * mul, x + w.first);
  w = weak32(s + 32, z + w.second, y + load64(s + 16));
  std::swap(z, x);
  return mix128(mix128(v.first, w.first, mul) + shiftMix(y) * kP0 + z,
                mix128(v.second, w.second, mul) + x, mul);
}

}  // namespace

uint64_t fingerprint64(const uint8_t* data, size_t length) {
  if (length <= 16) return hashUpTo16(data, length);
  if (length <= 32) return hash17To32(data, length);
  if (length <= 64) return hash33To64(data, length);
  return hashLong(data, length);
}

}  // namespace nncosim::ops::detection
