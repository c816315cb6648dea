// nnc_pkg::out_type_e as the harnesses of the units that saturate to it (requant,
// elementwise, pooling) see it: the codes, their names and ranges, and the saturation.
#pragma once

#include <cstdint>

namespace nncosim::testbench {

enum OutType : int { kOutU8 = 0, kOutI8 = 1, kOutI16 = 2, kOutI32 = 3, kOutU16 = 4 };
constexpr int kOutTypes = 5;
inline constexpr const char* kOutTypeName[] = {"u8", "i8", "i16", "i32", "u16"};
inline constexpr int64_t kTypeMin[] = {0, -128, -32768, INT32_MIN, 0};
inline constexpr int64_t kTypeMax[] = {255, 127, 32767, INT32_MAX, 65535};

// v saturated to out_type t's range.
inline int64_t saturateToType(int64_t v, int t) {
  return v < kTypeMin[t] ? kTypeMin[t] : (v > kTypeMax[t] ? kTypeMax[t] : v);
}

}  // namespace nncosim::testbench
