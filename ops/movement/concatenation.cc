// CONCATENATION: joins tensors along an axis. Quantized inputs whose scale or zero
// point differ from the output's are requantized the way NNAPI's CPU path does it
// (TFLite's float ConcatenationWithScaling, on uint8 data; int8 goes through uint8 with
// the zero points shifted by 128).
#include <algorithm>
#include <cmath>

#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  if (ctx.numInputs() < 2) return hal::fail("expected at least 2 inputs, got ", ctx.numInputs());
  if (ctx.numOutputs() != 1) return hal::fail("expected 1 output, got ", ctx.numOutputs());
  const size_t n = ctx.numInputs() - 1;
  NNC_TRY(expectRequired(ctx, ctx.numInputs()));
  NNC_TRY(expectInputTypeIn(ctx, 0, kFloatQuant8Types));
  for (size_t i = 0; i < n; ++i) {
    NNC_TRY(expectInputType(ctx, i, ctx.inputType(0)));
    NNC_TRY(expectInputRank(ctx, i, 0, 4));
  }
  NNC_TRY(expectInputType(ctx, n, OperandType::INT32));
  return expectOutputType(ctx, 0, ctx.inputType(0));
}

Result<uint32_t> concatAxis(const OperationContext& ctx, std::vector<uint32_t>* outDims) {
  const size_t n = ctx.numInputs() - 1;
  const Shape& first = ctx.inputShape(0);
  const uint32_t rank = first.rank();
  const int32_t axis = ctx.scalar<int32_t>(n);
  if (axis < 0 || axis >= static_cast<int32_t>(rank))
    return hal::fail("input ", n, " (axis): ", axis, " is out of range [0, ", rank, ")");
  if (rank > 4) return hal::fail("input 0: rank ", rank, " is more than 4");
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const Shape& s = ctx.inputShape(i);
    if (s.rank() != rank)
      return hal::fail("input ", i, ": shape ", toString(s.dimensions), " has rank ", s.rank(),
                       ", input 0 has rank ", rank);
    for (uint32_t d = 0; d < rank; ++d)
      if (d != static_cast<uint32_t>(axis) && s.dim(d) != first.dim(d))
        return hal::fail("input ", i, ": shape ", toString(s.dimensions),
                         " differs from input 0's ", toString(first.dimensions), " in dimension ",
                         d);
    sum += s.dim(axis);
  }
  if (outDims) {
    *outDims = first.dimensions;
    (*outDims)[axis] = static_cast<uint32_t>(sum);
  }
  return static_cast<uint32_t>(axis);
}

Status prepare(OperationContext& ctx) {
  std::vector<uint32_t> dims;
  NNC_TRY(concatAxis(ctx, &dims));
  return setOutput(ctx, 0, dims);
}

// Requantizes `count` values from (inScale, inZp) to (outScale, outZp), uint8 domain.
void requantize(const uint8_t* in, size_t count, float inScale, int32_t inZp, float outScale,
                int32_t outZp, uint8_t* out) {
  const float scale = inScale * (1.0f / outScale);
  const float bias = static_cast<float>(-inZp) * scale;
  for (size_t j = 0; j < count; ++j) {
    const int32_t v = static_cast<int32_t>(std::round(in[j] * scale + bias)) + outZp;
    out[j] = static_cast<uint8_t>(std::clamp(v, 0, 255));
  }
}

Status execute(OperationContext& ctx) {
  auto axis = concatAxis(ctx, nullptr);
  NNC_TRY(axis);
  const size_t n = ctx.numInputs() - 1;
  const Shape& out = ctx.outputShape(0);
  const OperandType t = out.type;
  const size_t es = hal::elementSize(t);
  const bool quant =
      t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const bool isSigned = t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const uint64_t outer = product(out.dimensions, 0, *axis);
  const uint64_t inner = product(out.dimensions, *axis + 1, out.rank());
  std::vector<uint8_t> tmp;
  uint8_t* dst = ctx.outputBytes(0);
  for (uint64_t k = 0; k < outer; ++k)
    for (size_t i = 0; i < n; ++i) {
      const Shape& s = ctx.inputShape(i);
      const uint64_t size = s.dim(*axis) * inner;
      const uint8_t* src = ctx.inputBytes(i) + k * size * es;
      if (!quant || (s.scale == out.scale && s.zeroPoint == out.zeroPoint)) {
        copyElements(dst, src, size, es);
      } else if (!isSigned) {
        requantize(src, size, s.scale, s.zeroPoint, out.scale, out.zeroPoint, dst);
      } else {
        // int8 -> uint8 (x + 128), requantize with zero points + 128, back to int8.
        tmp.resize(size);
        for (uint64_t j = 0; j < size; ++j) tmp[j] = static_cast<uint8_t>(src[j] ^ 0x80);
        requantize(tmp.data(), size, s.scale, s.zeroPoint + 128, out.scale, out.zeroPoint + 128,
                   dst);
        for (uint64_t j = 0; j < size; ++j) dst[j] ^= 0x80;
      }
      dst += size * es;
    }
  return Status::Ok();
}

}  // namespace

void registerConcatenation(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::CONCATENATION, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
