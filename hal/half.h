// Half: IEEE 754 binary16 storage with exact conversions to and from float.
// The reference computes in float32 and rounds to half on store, as NNAPI's CPU path does.
#pragma once

#include <cstdint>
#include <cstring>

namespace nncosim::hal {

// Round-to-nearest-even float -> half bits.
inline uint16_t floatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or nan
    return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  }
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (absx < 0x38800000u) {                                               // subnormal half or zero
    if (absx < 0x33000000u) return static_cast<uint16_t>(sign);  // below half of min subnormal
    // value / 2^-24 = mant * 2^(e - 126): drop (126 - e) bits, rounding to nearest even.
    const uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    const int drop = 126 - static_cast<int>(absx >> 23);  // 14..24
    const uint32_t keep = mant >> drop;
    const uint32_t rem = mant & ((1u << drop) - 1u);
    const uint32_t halfway = 1u << (drop - 1);
    uint32_t r = keep;
    if (rem > halfway || (rem == halfway && (keep & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t h = ((absx - 0x38000000u) >> 13);  // rebias exponent 127 -> 15
  const uint32_t rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(floatToHalfBits(f)) {}
  operator float() const { return halfBitsToFloat(bits); }  // NOLINT: numeric type
  static Half fromBits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};
static_assert(sizeof(Half) == 2);

}  // namespace nncosim::hal
