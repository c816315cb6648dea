// MAXIMUM, MINIMUM: elementwise max/min with broadcasting. Quantized inputs are first
// requantized to the output's scale and zero point (NNAPI's requantize), then compared.
#include <algorithm>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkBinarySignature(
      ctx, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
            OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  return checkOutputType(ctx, 0, ctx.inputType(0));
}

template <typename T, bool kQuant>
void kernel(OperationContext& ctx, bool isMinimum) {
  const Shape& sa = ctx.inputShape(0);
  const Shape& sb = ctx.inputShape(1);
  const Shape& so = ctx.outputShape(0);
  const T* a = ctx.input<T>(0);
  const T* b = ctx.input<T>(1);
  T* out = ctx.output<T>(0);
  forEachBroadcast(so.dimensions, sa, sb, [&](uint64_t o, uint64_t ia, uint64_t ib) {
    if constexpr (kQuant) {
      const T x = requantize<T>(a[ia], sa, so);
      const T y = requantize<T>(b[ib], sb, so);
      out[o] = isMinimum ? std::min(x, y) : std::max(x, y);
    } else {
      // Select the original element (keeps half bits and NaN handling of std::min/max).
      const auto x = toFloat(a[ia]);
      const auto y = toFloat(b[ib]);
      if (isMinimum)
        out[o] = (y < x) ? b[ib] : a[ia];
      else
        out[o] = (x < y) ? b[ib] : a[ia];
    }
  });
}

template <bool kIsMinimum>
Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      kernel<float, false>(ctx, kIsMinimum);
      break;
    case OperandType::TENSOR_FLOAT16:
      kernel<hal::Half, false>(ctx, kIsMinimum);
      break;
    case OperandType::TENSOR_INT32: {
      const Shape& so = ctx.outputShape(0);
      const int32_t* a = ctx.input<int32_t>(0);
      const int32_t* b = ctx.input<int32_t>(1);
      int32_t* out = ctx.output<int32_t>(0);
      forEachBroadcast(so.dimensions, ctx.inputShape(0), ctx.inputShape(1),
                       [&](uint64_t o, uint64_t ia, uint64_t ib) {
                         out[o] = kIsMinimum ? std::min(a[ia], b[ib]) : std::max(a[ia], b[ib]);
                       });
      break;
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      kernel<uint8_t, true>(ctx, kIsMinimum);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      kernel<int8_t, true>(ctx, kIsMinimum);
      break;
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
  return Status::Ok();
}

}  // namespace

void registerMaximumMinimum(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::MAXIMUM, &validate, &prepareBroadcast, &execute<false>});
  t.add(OperationDef{hal::OperationType::MINIMUM, &validate, &prepareBroadcast, &execute<true>});
}

}  // namespace nncosim::ops::elementwise
