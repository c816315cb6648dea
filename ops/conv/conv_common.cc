#include "ops/conv/conv_common.h"

#include <cstring>
#include <limits>

#include "ops/quant/quant_params.h"

namespace nncosim::ops::conv {

using hal::OperandType;

std::string inputName(const OperationContext& ctx, size_t i) {
  return "input " + std::to_string(i) + " (operand " + std::to_string(ctx.inputOperandIndex(i)) +
         ")";
}

Status checkCounts(const OperationContext& ctx, std::initializer_list<size_t> counts,
                   size_t outputs) {
  bool ok = false;
  std::string list;
  for (size_t c : counts) {
    ok = ok || ctx.numInputs() == c;
    list += (list.empty() ? "" : " or ") + std::to_string(c);
  }
  if (!ok) return hal::fail("expected ", list, " inputs, found ", ctx.numInputs());
  if (ctx.numOutputs() != outputs)
    return hal::fail("expected ", outputs, " output(s), found ", ctx.numOutputs());
  return Status::Ok();
}

Status checkInputType(const OperationContext& ctx, size_t i, OperandType expected) {
  if (ctx.isOmitted(i))
    return hal::fail(inputName(ctx, i), ": required but omitted (expected ",
                     hal::toString(expected), ")");
  if (ctx.inputType(i) != expected)
    return hal::fail(inputName(ctx, i), ": expected ", hal::toString(expected), ", found ",
                     hal::toString(ctx.inputType(i)));
  return Status::Ok();
}

Status checkInputTypes(const OperationContext& ctx, size_t first,
                       std::initializer_list<OperandType> types) {
  size_t i = first;
  for (OperandType t : types) {
    NNC_TRY(checkInputType(ctx, i, t));
    ++i;
  }
  return Status::Ok();
}

Status checkOutputType(const OperationContext& ctx, size_t i, OperandType expected) {
  const OperandType t = ctx.outputShape(i).type;
  if (t != expected)
    return hal::fail("output ", i, ": expected ", hal::toString(expected), ", found ",
                     hal::toString(t));
  return Status::Ok();
}

Status checkRankIfKnown(const OperationContext& ctx, size_t i, uint32_t rank) {
  const Shape& s = ctx.inputShape(i);
  if (s.rank() != 0 && s.rank() != rank)
    return hal::fail(inputName(ctx, i), ": expected rank ", rank, ", found shape ",
                     toString(s.dimensions));
  return Status::Ok();
}

Status checkRankRangeIfKnown(const OperationContext& ctx, size_t i, uint32_t lo, uint32_t hi) {
  const Shape& s = ctx.inputShape(i);
  if (s.rank() != 0 && (s.rank() < lo || s.rank() > hi))
    return hal::fail(inputName(ctx, i), ": expected rank ", lo, " to ", hi, ", found shape ",
                     toString(s.dimensions));
  return Status::Ok();
}

Status checkRank(const OperationContext& ctx, size_t i, uint32_t rank) {
  const Shape& s = ctx.inputShape(i);
  if (s.rank() != rank)
    return hal::fail(inputName(ctx, i), ": expected rank ", rank, ", found shape ",
                     toString(s.dimensions));
  return Status::Ok();
}

void explicitPadding(int32_t inSize, int32_t stride, int32_t dilation, int32_t filterSize,
                     int32_t scheme, bool transposeConv, int32_t* head, int32_t* tail) {
  *head = 0;
  *tail = 0;
  if (scheme != kPaddingSame) return;
  // 64-bit intermediates: the parameters are validated only afterwards.
  const int64_t effectiveFilter = (int64_t{filterSize} - 1) * dilation + 1;
  const int64_t outSize = (int64_t{inSize} + stride - 1) / stride;
  const int64_t needed = (outSize - 1) * stride + effectiveFilter;
  if (needed > inSize) {
    *head = static_cast<int32_t>((needed - inSize) / 2);
    *tail = static_cast<int32_t>((needed - inSize) - *head);
  }
  // TRANSPOSE_CONV_2D: the tail fits the last stride exactly, even when negative.
  if (transposeConv) *tail = static_cast<int32_t>((needed - inSize) - *head);
}

int64_t convOutSize(int64_t inSize, int64_t filterSize, int64_t stride, int64_t dilation,
                    int64_t padHead, int64_t padTail) {
  const int64_t effectiveFilter = (filterSize - 1) * dilation + 1;
  // C++ division truncates toward zero, as NNAPI's int32 formula does.
  return (inSize - effectiveFilter + stride + padHead + padTail) / stride;
}

Status checkOutputSize(int64_t outH, int64_t outW, const std::vector<uint32_t>& dims) {
  if (outH <= 0 || outW <= 0 || outH > INT32_MAX || outW > INT32_MAX)
    return hal::fail("output size ", outW, "x", outH, " (w x h) is out of range");
  uint64_t n = 1;
  for (uint32_t d : dims) {
    n *= d;  // n <= 2^31 and d < 2^32: no overflow
    if (n > (uint64_t{1} << 31))
      return hal::fail("output shape ", toString(dims), " has more than 2^31 elements");
  }
  return Status::Ok();
}

Status checkActivation(int32_t activation, const OperationContext& ctx, size_t i) {
  if (activation < quant::kActNone || activation > quant::kActRelu6)
    return hal::fail(inputName(ctx, i), ": fused activation ", activation,
                     " is not a FuseCode (0 NONE, 1 RELU, 2 RELU1, 3 RELU6)");
  return Status::Ok();
}

Status checkPaddingScheme(int32_t scheme, const OperationContext& ctx, size_t i) {
  if (scheme != kPaddingSame && scheme != kPaddingValid)
    return hal::fail(inputName(ctx, i), ": padding scheme ", scheme,
                     " is not a PaddingCode (1 SAME, 2 VALID)");
  return Status::Ok();
}

FloatRange floatActivationRange(int32_t activation) {
  FloatRange r;
  quant::activationRangeFloat(activation, &r.min, &r.max);
  return r;
}

std::vector<float> loadFloat(const OperationContext& ctx, size_t i) {
  const Shape& s = ctx.inputShape(i);
  const size_t n = s.elements();
  std::vector<float> v(n);
  if (n == 0) return v;
  if (s.type == OperandType::TENSOR_FLOAT16) {
    const uint8_t* p = ctx.inputBytes(i);
    for (size_t k = 0; k < n; ++k) {
      uint16_t bits;
      std::memcpy(&bits, p + 2 * k, 2);
      v[k] = hal::halfBitsToFloat(bits);
    }
  } else {
    std::memcpy(v.data(), ctx.inputBytes(i), n * sizeof(float));
  }
  return v;
}

std::vector<float> loadFloatNhwc(const OperationContext& ctx, size_t i, bool nchw) {
  std::vector<float> v = loadFloat(ctx, i);
  if (!nchw) return v;
  return nchwToNhwc(v.data(), ctx.inputShape(i).dimensions);
}

void storeFloat(OperationContext& ctx, size_t i, const std::vector<float>& values) {
  if (values.empty()) return;
  if (ctx.outputShape(i).type == OperandType::TENSOR_FLOAT16) {
    uint8_t* p = ctx.outputBytes(i);
    for (size_t k = 0; k < values.size(); ++k) {
      const uint16_t bits = hal::floatToHalfBits(values[k]);
      std::memcpy(p + 2 * k, &bits, 2);
    }
  } else {
    std::memcpy(ctx.outputBytes(i), values.data(), values.size() * sizeof(float));
  }
}

void storeFloatNhwc(OperationContext& ctx, size_t i, const std::vector<float>& nhwc,
                    const std::vector<uint32_t>& nhwcDims, bool nchw) {
  if (!nchw) {
    storeFloat(ctx, i, nhwc);
    return;
  }
  std::vector<float> nchwData(nhwc.size());
  nhwcToNchw(nhwc.data(), nhwcDims, nchwData.data());
  storeFloat(ctx, i, nchwData);
}

bool isQuant8(OperandType t) {
  return t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}

hal::Error unsupportedInputType(const OperationContext& ctx, size_t i, const char* expected) {
  const OperandType t = ctx.inputType(i);
  if (isQuant16(t) && !ctx.quant16x8())
    return hal::fail(inputName(ctx, i), ": unsupported type ", hal::toString(t), " (expected ",
                     expected,
                     "; TENSOR_QUANT16_SYMM needs the 16x8 quantization mode, which "
                     "the model must select: \"quant16x8\": true)");
  return hal::fail(inputName(ctx, i), ": unsupported type ", hal::toString(t), " (expected ",
                   expected, ctx.quant16x8() ? " or, in the 16x8 mode, TENSOR_QUANT16_SYMM)" : ")");
}

bool isFloatTensor(OperandType t) {
  return t == OperandType::TENSOR_FLOAT32 || t == OperandType::TENSOR_FLOAT16;
}

}  // namespace nncosim::ops::conv
