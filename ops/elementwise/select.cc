// SELECT: output[i] = condition[i] ? input1[i] : input2[i]; all three of one shape (no
// broadcasting). Quantized inputs are requantized to the output's parameters first.
#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {3}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkInputType(ctx, 0, OperandType::TENSOR_BOOL8));
  NNC_TRY(checkSupportedType(
      ctx, 1,
      {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
       OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NNC_TRY(checkInputType(ctx, 2, ctx.inputType(1)));
  return checkOutputType(ctx, 0, ctx.inputType(1));
}

Status prepare(OperationContext& ctx) {
  const Shape& cond = ctx.inputShape(0);
  const Shape& a = ctx.inputShape(1);
  const Shape& b = ctx.inputShape(2);
  if (cond.dimensions != a.dimensions)
    return hal::fail("input 0: condition shape ", toString(cond.dimensions),
                     " differs from input 1 shape ", toString(a.dimensions));
  if (b.dimensions != a.dimensions)
    return hal::fail("input 2: shape ", toString(b.dimensions), " differs from input 1 shape ",
                     toString(a.dimensions));
  Shape out = ctx.outputShape(0);
  out.dimensions = a.dimensions;
  return ctx.setOutputShape(0, out);
}

template <typename T>
void kernel(OperationContext& ctx) {
  const Shape& sa = ctx.inputShape(1);
  const Shape& sb = ctx.inputShape(2);
  const Shape& so = ctx.outputShape(0);
  const uint8_t* cond = ctx.input<uint8_t>(0);
  const T* a = ctx.input<T>(1);
  const T* b = ctx.input<T>(2);
  T* out = ctx.output<T>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
      out[i] = cond[i] ? requantize<T>(a[i], sa, so) : requantize<T>(b[i], sb, so);
    } else {
      out[i] = cond[i] ? a[i] : b[i];
    }
  }
}

Status execute(OperationContext& ctx) {
  switch (ctx.inputType(1)) {
    case OperandType::TENSOR_FLOAT32:
      kernel<float>(ctx);
      break;
    case OperandType::TENSOR_FLOAT16:
      kernel<hal::Half>(ctx);
      break;
    case OperandType::TENSOR_INT32:
      kernel<int32_t>(ctx);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      kernel<uint8_t>(ctx);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      kernel<int8_t>(ctx);
      break;
    default:
      return hal::fail("input 1: unsupported type ", hal::toString(ctx.inputType(1)));
  }
  return Status::Ok();
}

}  // namespace

void registerSelect(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SELECT, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
