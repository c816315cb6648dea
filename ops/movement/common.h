// Helpers shared by the movement operations: signature checks for validate(), value
// readers and axis handling for prepare(), and type-generic byte kernels (permute,
// NCHW <-> NHWC) for execute().
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "hal/half.h"
#include "ops/operation.h"

namespace nncosim::ops::movement {

// ---- validate helpers -------------------------------------------------------------

// Input count in [minInputs, maxInputs] and exactly `outputs` outputs.
Status expectCounts(const OperationContext& ctx, size_t minInputs, size_t maxInputs,
                    size_t outputs);
// Inputs [0, n) are present (not omitted): their values are read unconditionally.
Status expectRequired(const OperationContext& ctx, size_t n);
// Input i has type t.
Status expectInputType(const OperationContext& ctx, size_t i, OperandType t);
// Output i has type t.
Status expectOutputType(const OperationContext& ctx, size_t i, OperandType t);
// Input i's type is one of `allowed`.
Status expectInputTypeIn(const OperationContext& ctx, size_t i,
                         std::initializer_list<OperandType> allowed);
// For quantized input types, output `out` has input `in`'s scale and zero point
// (the rule of every data-movement operation).
Status expectSameQuant(const OperationContext& ctx, size_t in, size_t out);
// Input i, when its rank is known, has rank <= maxRank (and >= minRank).
Status expectInputRank(const OperationContext& ctx, size_t i, uint32_t minRank, uint32_t maxRank);
// A tensor operand with no dimensions has an unknown rank.
inline bool rankKnown(const Shape& s) { return !s.dimensions.empty(); }

// The usual four types of the NHWC/NCHW and shape operations.
inline constexpr std::initializer_list<OperandType> kFloatQuant8Types = {
    OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_QUANT8_ASYMM,
    OperandType::TENSOR_QUANT8_ASYMM_SIGNED};
// nncosim's 16x8 mode (docs/quantization.md section 10) extends the pure data-movement
// operations that TFLite's 16x8 models use (PAD, PAD_V2, STRIDED_SLICE) to
// TENSOR_QUANT16_SYMM: they copy int16 values unchanged, as TFLite's int16 kernels do.
inline constexpr std::initializer_list<OperandType> kQuant16Types = {
    OperandType::TENSOR_QUANT16_SYMM};
// kFloatQuant8Types, or kQuant16Types for an int16 input in the 16x8 mode.
std::initializer_list<OperandType> movementTypes(const OperationContext& ctx);
// The same plus TENSOR_INT32.
inline constexpr std::initializer_list<OperandType> kFloatQuant8Int32Types = {
    OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_QUANT8_ASYMM,
    OperandType::TENSOR_QUANT8_ASYMM_SIGNED, OperandType::TENSOR_INT32};

// Common signature: input 0 of one of `types`, the given further input types, output 0
// of input 0's type with the same quantization. `extra[k]` is the type of input k + 1;
// inputs beyond `required` are optional.
Status expectUnarySignature(const OperationContext& ctx, std::initializer_list<OperandType> types,
                            std::initializer_list<OperandType> extra, size_t required);

// ---- prepare helpers --------------------------------------------------------------

bool isQuant8(OperandType t);
// Values of a 1-D (or any) TENSOR_INT32 input.
std::vector<int32_t> int32Values(const OperationContext& ctx, size_t i);
// Checks input i is a 1-D tensor with `count` elements (count < 0: any).
Status expect1D(const OperationContext& ctx, size_t i, int64_t count, const char* what);
// axis in [-rank, rank) -> [0, rank).
Result<uint32_t> resolveAxis(int32_t axis, uint32_t rank, const char* what);
// Boolean scalar input i, or `def` when omitted / absent.
bool optionalBool(const OperationContext& ctx, size_t i, bool def = false);
// Output `i` with its declared type/quantization and the given dimensions; fails when the
// element count does not fit in 2^31 (so no product below can overflow).
Status setOutput(OperationContext& ctx, size_t i, std::vector<uint32_t> dims);
// dims as uint32, or an error naming `what` when one does not fit.
Result<std::vector<uint32_t>> narrowDims(const std::vector<uint64_t>& dims, const char* what);
// Product of dims[begin, end).
uint64_t product(const std::vector<uint32_t>& dims, size_t begin, size_t end);

// ---- execute helpers --------------------------------------------------------------

// out[perm-order] = in: output dimension d is input dimension perm[d].
void permute(const uint8_t* in, const std::vector<uint32_t>& inDims,
             const std::vector<uint32_t>& perm, size_t elemSize, uint8_t* out);
// A 4-D tensor in NCHW order to NHWC and back.
std::vector<uint8_t> nchwToNhwc(const uint8_t* in, const std::vector<uint32_t>& nchwDims,
                                size_t elemSize);
void nhwcToNchw(const uint8_t* in, const std::vector<uint32_t>& nhwcDims, size_t elemSize,
                uint8_t* out);
inline std::vector<uint32_t> toNhwc(const std::vector<uint32_t>& d) {
  return {d[0], d[2], d[3], d[1]};
}
inline std::vector<uint32_t> toNchw(const std::vector<uint32_t>& d) {
  return {d[0], d[3], d[1], d[2]};
}
// Copies `count` elements of `elemSize` bytes.
inline void copyElements(uint8_t* dst, const uint8_t* src, size_t count, size_t elemSize) {
  if (count) std::memcpy(dst, src, count * elemSize);
}
// Fills `count` elements with the element at `value`.
void fillElements(uint8_t* dst, const uint8_t* value, size_t count, size_t elemSize);

// Runs a 4-D NHWC kernel `k(inNhwc, inNhwcDims, outNhwc, outNhwcDims)` over input 0 and
// output 0, converting from/to NCHW when `nchw`. outDims are the output's actual dims
// (already set by prepare), in the operand's own layout.
template <typename Kernel>
Status runNhwc(OperationContext& ctx, bool nchw, Kernel&& k) {
  const Shape& in = ctx.inputShape(0);
  const Shape& out = ctx.outputShape(0);
  const size_t es = hal::elementSize(in.type);
  if (!nchw) return k(ctx.inputBytes(0), in.dimensions, ctx.outputBytes(0), out.dimensions);
  std::vector<uint8_t> inNhwc = nchwToNhwc(ctx.inputBytes(0), in.dimensions, es);
  const std::vector<uint32_t> outNhwcDims = toNhwc(out.dimensions);
  std::vector<uint8_t> outNhwc(out.bytes());
  NNC_TRY(k(inNhwc.data(), toNhwc(in.dimensions), outNhwc.data(), outNhwcDims));
  nhwcToNchw(outNhwc.data(), outNhwcDims, es, ctx.outputBytes(0));
  return Status::Ok();
}

// Element conversions for the computing operations (float math, round to half on store).
template <typename T>
inline float toFloat(T v) {
  return static_cast<float>(v);
}
template <typename T>
inline T fromFloat(float f) {
  return static_cast<T>(f);
}
template <>
inline hal::Half fromFloat<hal::Half>(float f) {
  return hal::Half(f);
}
// Comparable value: float for Half, the value itself otherwise.
template <typename T>
inline T toFloatOrInt(T v) {
  return v;
}
inline float toFloatOrInt(hal::Half v) { return static_cast<float>(v); }

}  // namespace nncosim::ops::movement

namespace nncosim::ops::movement {

// Calls f(T{}) with T the C++ element type of tensor type t (Half for TENSOR_FLOAT16);
// an error for types without one.
template <typename F>
Status dispatchElementType(OperandType t, F&& f) {
  switch (t) {
    case OperandType::TENSOR_FLOAT32:
      return f(float{});
    case OperandType::TENSOR_FLOAT16:
      return f(hal::Half{});
    case OperandType::TENSOR_INT32:
      return f(int32_t{});
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_BOOL8:
      return f(uint8_t{});
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
      return f(int8_t{});
    case OperandType::TENSOR_QUANT16_SYMM:
      return f(int16_t{});
    case OperandType::TENSOR_QUANT16_ASYMM:
      return f(uint16_t{});
    default:
      return hal::fail("type ", hal::toString(t), " has no element kernel");
  }
}

// Reduction bookkeeping shared by MEAN and REDUCE_*: which input dimensions are reduced
// and the output stride of every input dimension (0 for reduced ones).
struct ReducePlan {
  std::vector<bool> reduced;
  std::vector<uint32_t> outDims;    // with keep_dims applied; [1] when all are removed
  std::vector<uint64_t> outStride;  // per input dimension
  uint64_t reducedCount = 1;        // input elements folded into each output element
};
Result<ReducePlan> makeReducePlan(const Shape& input, const std::vector<int32_t>& axes,
                                  bool keepDims, const char* what);
// Calls f(inputIndex, outputIndex) for every input element, in input order.
template <typename F>
void forEachReduced(const std::vector<uint32_t>& inDims, const ReducePlan& p, F&& f) {
  const size_t rank = inDims.size();
  uint64_t total = 1;
  for (uint32_t d : inDims) total *= d;
  if (total == 0) return;
  if (rank == 0) {
    f(uint64_t{0}, uint64_t{0});
    return;
  }
  std::vector<uint32_t> idx(rank, 0);
  uint64_t o = 0;
  const size_t last = rank - 1;
  for (uint64_t i = 0; i < total;) {
    const uint64_t s = p.outStride[last];
    for (uint32_t k = 0; k < inDims[last]; ++k, ++i) f(i, o + k * s);
    size_t d = last;
    while (d > 0) {
      --d;
      o += p.outStride[d];
      if (++idx[d] < inDims[d]) break;
      o -= p.outStride[d] * inDims[d];
      idx[d] = 0;
    }
  }
}

}  // namespace nncosim::ops::movement
