// Helpers shared by the conv family: operand signature checks, the NNAPI padding and
// output-size formulas, NCHW <-> NHWC, and float / float16 tensor access.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "hal/half.h"
#include "ops/operation.h"

namespace nncosim::ops::conv {

// NNAPI PaddingCode.
inline constexpr int32_t kPaddingSame = 1;
inline constexpr int32_t kPaddingValid = 2;

// "input 3 (operand 7)" for messages.
std::string inputName(const OperationContext& ctx, size_t i);

// Checks that the operation has one of `counts` inputs and `outputs` outputs.
Status checkCounts(const OperationContext& ctx, std::initializer_list<size_t> counts,
                   size_t outputs);
// Checks the type of input i (and that it is not omitted).
Status checkInputType(const OperationContext& ctx, size_t i, hal::OperandType expected);
// Checks inputs [first, first + types.size()) in order.
Status checkInputTypes(const OperationContext& ctx, size_t first,
                       std::initializer_list<hal::OperandType> types);
Status checkOutputType(const OperationContext& ctx, size_t i, hal::OperandType expected);
// Checks the rank of input i when it is known (non-empty dimensions).
Status checkRankIfKnown(const OperationContext& ctx, size_t i, uint32_t rank);
// The same, for ranks within [lo, hi].
Status checkRankRangeIfKnown(const OperationContext& ctx, size_t i, uint32_t lo, uint32_t hi);
// Checks the rank of input i (prepare, where every shape is known).
Status checkRank(const OperationContext& ctx, size_t i, uint32_t rank);

// Scalars (valid only once hasInputValue(i)).
inline int32_t intScalar(const OperationContext& ctx, size_t i) { return ctx.scalar<int32_t>(i); }
inline bool boolScalar(const OperationContext& ctx, size_t i) {
  return ctx.scalar<uint8_t>(i) != 0;
}

// NNAPI's explicit padding for an implicit scheme (calculateExplicitPaddingImpl).
// For TRANSPOSE_CONV_2D, inSize is the output size and the tail may come out negative.
void explicitPadding(int32_t inSize, int32_t stride, int32_t dilation, int32_t filterSize,
                     int32_t scheme, bool transposeConv, int32_t* head, int32_t* tail);
// NNAPI's computeOutSize, in 64 bits so that bad parameters cannot overflow.
int64_t convOutSize(int64_t inSize, int64_t filterSize, int64_t stride, int64_t dilation,
                    int64_t padHead, int64_t padTail);

// Rejects spatial sizes above INT32_MAX and tensors of more than 2^31 elements, computed
// without overflow (so that a wrapped element count can never pass a size check).
Status checkOutputSize(int64_t outH, int64_t outW, const std::vector<uint32_t>& dims);

Status checkActivation(int32_t activation, const OperationContext& ctx, size_t i);
Status checkPaddingScheme(int32_t scheme, const OperationContext& ctx, size_t i);

// Float clamp bounds of a fused activation.
struct FloatRange {
  float min, max;
};
FloatRange floatActivationRange(int32_t activation);

// [N, C, H, W] <-> [N, H, W, C] copies. dims are the source's dimensions.
template <typename T>
std::vector<T> nchwToNhwc(const T* src, const std::vector<uint32_t>& nchwDims) {
  const size_t n = nchwDims[0], c = nchwDims[1], h = nchwDims[2], w = nchwDims[3];
  std::vector<T> dst(n * c * h * w);
  for (size_t b = 0; b < n; ++b)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t y = 0; y < h; ++y)
        for (size_t x = 0; x < w; ++x)
          dst[((b * h + y) * w + x) * c + ch] = src[((b * c + ch) * h + y) * w + x];
  return dst;
}
template <typename T>
void nhwcToNchw(const T* src, const std::vector<uint32_t>& nhwcDims, T* dst) {
  const size_t n = nhwcDims[0], h = nhwcDims[1], w = nhwcDims[2], c = nhwcDims[3];
  for (size_t b = 0; b < n; ++b)
    for (size_t y = 0; y < h; ++y)
      for (size_t x = 0; x < w; ++x)
        for (size_t ch = 0; ch < c; ++ch)
          dst[((b * c + ch) * h + y) * w + x] = src[((b * h + y) * w + x) * c + ch];
}
// NHWC dimensions of a 4-D shape given in `nchw` layout or not.
inline std::vector<uint32_t> toNhwcDims(const std::vector<uint32_t>& d, bool nchw) {
  return nchw ? std::vector<uint32_t>{d[0], d[2], d[3], d[1]} : d;
}
inline std::vector<uint32_t> fromNhwcDims(const std::vector<uint32_t>& d, bool nchw) {
  return nchw ? std::vector<uint32_t>{d[0], d[3], d[1], d[2]} : d;
}

// Input i as elements of T in NHWC order (a copy; T matches the operand's storage).
template <typename T>
std::vector<T> loadNhwc(const OperationContext& ctx, size_t i, bool nchw) {
  const Shape& s = ctx.inputShape(i);
  const T* p = ctx.input<T>(i);
  if (nchw) return nchwToNhwc(p, s.dimensions);
  return std::vector<T>(p, p + s.elements());
}

// Input i (TENSOR_FLOAT32 or TENSOR_FLOAT16) as floats, in storage order.
std::vector<float> loadFloat(const OperationContext& ctx, size_t i);
// The same, converted to NHWC when `nchw`.
std::vector<float> loadFloatNhwc(const OperationContext& ctx, size_t i, bool nchw);
// Writes floats (in storage order) to output i, rounding to half for TENSOR_FLOAT16.
void storeFloat(OperationContext& ctx, size_t i, const std::vector<float>& values);
// Writes an NHWC result to output i, transposing to NCHW when `nchw`.
template <typename T>
void storeNhwc(OperationContext& ctx, size_t i, const std::vector<T>& nhwc,
               const std::vector<uint32_t>& nhwcDims, bool nchw) {
  T* out = ctx.output<T>(i);
  if (nchw) {
    nhwcToNchw(nhwc.data(), nhwcDims, out);
  } else {
    std::copy(nhwc.begin(), nhwc.end(), out);
  }
}
void storeFloatNhwc(OperationContext& ctx, size_t i, const std::vector<float>& nhwc,
                    const std::vector<uint32_t>& nhwcDims, bool nchw);

bool isQuant8(hal::OperandType t);
bool isFloatTensor(hal::OperandType t);
// TENSOR_QUANT16_SYMM: the activations of the 16x8 quantization mode.
inline bool isQuant16(hal::OperandType t) { return t == hal::OperandType::TENSOR_QUANT16_SYMM; }

// The "unsupported type" error for input i of an operation that takes the `expected`
// types, with TENSOR_QUANT16_SYMM added when the model selects the 16x8 mode; for a
// TENSOR_QUANT16_SYMM input of a model that does not, it says how to select the mode.
hal::Error unsupportedInputType(const OperationContext& ctx, size_t i, const char* expected);

}  // namespace nncosim::ops::conv
