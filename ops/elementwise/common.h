// Shared helpers of the elementwise family: operand-signature checks, NumPy-style
// broadcasting, float/half element access and the quantized rounding NNAPI uses.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

#include "hal/half.h"
#include "ops/operation.h"
#include "ops/registry.h"

namespace nncosim::ops::elementwise {

// ---- operand signature checks (messages name the index, expected and found) ----

Status checkInputCount(const OperationContext& ctx, std::initializer_list<size_t> allowed);
Status checkOutputCount(const OperationContext& ctx, size_t expected);
// Input i must not be an omitted optional input (implied by the two checks below).
Status checkNotOmitted(const OperationContext& ctx, size_t i);
// Input i must have exactly `expected` type.
Status checkInputType(const OperationContext& ctx, size_t i, OperandType expected);
Status checkOutputType(const OperationContext& ctx, size_t i, OperandType expected);
// Input 0's type must be one of `allowed` (the operation's supported tensor types).
Status checkSupportedType(const OperationContext& ctx, size_t i,
                          std::initializer_list<OperandType> allowed);
// Rank of input i at most `maxRank` when its rank is known.
Status checkInputRankAtMost(const OperationContext& ctx, size_t i, uint32_t maxRank);
// A fused activation scalar (input i) in [0, 3] when its value is readable.
Status checkFusedActivation(const OperationContext& ctx, size_t i);
// Two inputs and one output; input 0 of one of `allowed` and input 1 of input 0's type.
Status checkBinarySignature(const OperationContext& ctx,
                            std::initializer_list<OperandType> allowed);

bool isQuant8(OperandType t);  // TENSOR_QUANT8_ASYMM or _SIGNED

// ---- broadcasting ----

// The NumPy broadcast of two shapes (right-aligned, 1 stretches).
Result<std::vector<uint32_t>> broadcastDims(const Shape& a, const Shape& b);

// prepare() of the broadcasting binary operations: output 0 = the broadcast of inputs 0
// and 1.
Status prepareBroadcast(OperationContext& ctx);

// Calls f(outIndex, aIndex, bIndex) for every output element of the broadcast of a and b
// to `outDims` (which must be their broadcast shape).
template <typename F>
void forEachBroadcast(const std::vector<uint32_t>& outDims, const Shape& a, const Shape& b, F&& f) {
  const size_t rank = outDims.size();
  uint64_t total = 1;
  for (uint32_t d : outDims) total *= d;
  if (total == 0) return;
  if (a.dimensions == outDims && b.dimensions == outDims) {
    for (uint64_t i = 0; i < total; ++i) f(i, i, i);
    return;
  }
  // Strides of a and b in output coordinates; broadcast dimensions get stride 0.
  std::vector<uint64_t> sa(rank, 0), sb(rank, 0);
  auto strides = [&](const Shape& s, std::vector<uint64_t>& out) {
    uint64_t stride = 1;
    const size_t r = s.dimensions.size();
    for (size_t k = 0; k < r; ++k) {
      const size_t src = r - 1 - k;
      const size_t dst = rank - 1 - k;
      out[dst] = s.dimensions[src] == 1 ? 0 : stride;
      stride *= s.dimensions[src];
    }
  };
  strides(a, sa);
  strides(b, sb);
  if (rank == 0) {
    f(0, 0, 0);
    return;
  }
  std::vector<uint32_t> idx(rank, 0);
  const uint32_t inner = outDims[rank - 1];
  const uint64_t ia = sa[rank - 1], ib = sb[rank - 1];
  uint64_t o = 0, baseA = 0, baseB = 0;
  while (true) {
    for (uint32_t k = 0; k < inner; ++k) f(o++, baseA + k * ia, baseB + k * ib);
    // Advance the outer dimensions like an odometer.
    int d = static_cast<int>(rank) - 2;
    for (; d >= 0; --d) {
      ++idx[d];
      baseA += sa[d];
      baseB += sb[d];
      if (idx[d] < outDims[d]) break;
      baseA -= sa[d] * outDims[d];
      baseB -= sb[d] * outDims[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// ---- float and half elements ----

template <typename T>
inline float toFloat(T v) {
  return static_cast<float>(v);
}
template <typename T>
inline T fromFloat(float f);
template <>
inline float fromFloat<float>(float f) {
  return f;
}
template <>
inline hal::Half fromFloat<hal::Half>(float f) {
  return hal::Half(f);
}

// Reads a FLOAT32 or FLOAT16 scalar input as float.
float floatScalar(const OperationContext& ctx, size_t i);

// ---- quantized helpers ----

template <typename T>
inline int32_t saturateTo(int32_t v) {
  const int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return v < lo ? lo : (v > hi ? hi : v);
}

// NNAPI's requantize(): value from (in scale, zp) to (out scale, zp) through float/double,
// rounded half away from zero and saturated. The dequantized value is a float product, as
// NNAPI's (value - offset) * scale is.
template <typename T>
inline T requantize(T value, const Shape& from, const Shape& to) {
  const float real = static_cast<float>(static_cast<int32_t>(value) - from.zeroPoint) * from.scale;
  const double r = static_cast<double>(real) / to.scale + to.zeroPoint;
  const double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  if (r < lo) return static_cast<T>(lo);
  if (r > hi) return static_cast<T>(hi);
  return static_cast<T>(std::round(r));
}

// Element count of a shape's dimensions.
inline uint64_t numElements(const std::vector<uint32_t>& dims) {
  uint64_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

// Resolves a possibly negative axis against `rank`.
Result<uint32_t> resolveAxis(int32_t axis, uint32_t rank, size_t inputIndex);

// ---- registration (one function per source file) ----

void registerAdd(OperationTable& t);
void registerSub(OperationTable& t);
void registerMul(OperationTable& t);
void registerDiv(OperationTable& t);
void registerMaximumMinimum(OperationTable& t);
void registerPow(OperationTable& t);
void registerPrelu(OperationTable& t);
void registerUnaryMath(OperationTable& t);
void registerRelu(OperationTable& t);
void registerLogistic(OperationTable& t);
void registerTanh(OperationTable& t);
void registerElu(OperationTable& t);
void registerHardSwish(OperationTable& t);
void registerComparisons(OperationTable& t);
void registerLogical(OperationTable& t);
void registerSelect(OperationTable& t);
void registerCast(OperationTable& t);
void registerQuantize(OperationTable& t);
void registerDequantize(OperationTable& t);
void registerSoftmax(OperationTable& t);
void registerLogSoftmax(OperationTable& t);

}  // namespace nncosim::ops::elementwise
