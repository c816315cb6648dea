// DEQUANTIZE: scale * (q - zeroPoint) in float, stored as float32 or float16. Per-channel
// inputs take the scale of their index along channelDim.
#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {1}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkSupportedType(
      ctx, 0,
      {OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
       OperandType::TENSOR_QUANT8_SYMM, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL}));
  const OperandType out = ctx.outputShape(0).type;
  if (out != OperandType::TENSOR_FLOAT32 && out != OperandType::TENSOR_FLOAT16)
    return hal::fail("output 0: expected TENSOR_FLOAT32 or TENSOR_FLOAT16, found ",
                     hal::toString(out));
  return checkInputRankAtMost(ctx, 0, 4);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(checkInputRankAtMost(ctx, 0, 4));
  const Shape& in = ctx.inputShape(0);
  if (in.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    if (!in.channelQuant)
      return hal::fail("input 0: TENSOR_QUANT8_SYMM_PER_CHANNEL without channel parameters");
    const uint32_t dim = in.channelQuant->channelDim;
    if (dim >= in.rank())
      return hal::fail("input 0: channelDim ", dim, " is out of range for rank ", in.rank());
    if (in.channelQuant->scales.size() != in.dim(dim))
      return hal::fail("input 0: ", in.channelQuant->scales.size(), " channel scales for ",
                       in.dim(dim), " channels");
  }
  Shape out = ctx.outputShape(0);
  out.dimensions = in.dimensions;
  return ctx.setOutputShape(0, out);
}

template <typename From, typename To>
void kernel(OperationContext& ctx) {
  const Shape& si = ctx.inputShape(0);
  const From* in = ctx.input<From>(0);
  To* out = ctx.output<To>(0);
  const uint64_t n = si.elements();
  if (si.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    const uint32_t dim = si.channelQuant->channelDim;
    uint64_t stride = 1;
    for (uint32_t d = dim + 1; d < si.rank(); ++d) stride *= si.dim(d);
    const auto& scales = si.channelQuant->scales;
    for (uint64_t i = 0; i < n; ++i) {
      const float scale = scales[(i / stride) % si.dim(dim)];
      out[i] = fromFloat<To>(scale * static_cast<float>(int32_t{in[i]} - si.zeroPoint));
    }
    return;
  }
  for (uint64_t i = 0; i < n; ++i)
    out[i] = fromFloat<To>(si.scale * static_cast<float>(int32_t{in[i]} - si.zeroPoint));
}

template <typename From>
void dispatch(OperationContext& ctx) {
  if (ctx.outputShape(0).type == OperandType::TENSOR_FLOAT16)
    kernel<From, hal::Half>(ctx);
  else
    kernel<From, float>(ctx);
}

Status execute(OperationContext& ctx) {
  if (ctx.inputType(0) == OperandType::TENSOR_QUANT8_ASYMM)
    dispatch<uint8_t>(ctx);
  else
    dispatch<int8_t>(ctx);
  return Status::Ok();
}

}  // namespace

void registerDequantize(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::DEQUANTIZE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
