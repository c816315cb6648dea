// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL with broadcasting; the output
// is TENSOR_BOOL8. Quantized inputs compare their real values ((q - zp) * scale in float),
// so the two inputs may have different scales.
#include <functional>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

using hal::OperationType;

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkBinarySignature(
      ctx, {OperandType::TENSOR_BOOL8, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32,
            OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM,
            OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  return checkOutputType(ctx, 0, OperandType::TENSOR_BOOL8);
}

// Element tag for TENSOR_BOOL8: bytes compare as truth values (any non-zero byte is true).
struct Bool8 {
  uint8_t v;
};

template <typename T, typename Cmp>
void kernel(OperationContext& ctx, Cmp cmp) {
  const Shape& sa = ctx.inputShape(0);
  const Shape& sb = ctx.inputShape(1);
  const T* a = ctx.input<T>(0);
  const T* b = ctx.input<T>(1);
  uint8_t* out = ctx.output<uint8_t>(0);
  forEachBroadcast(ctx.outputShape(0).dimensions, sa, sb,
                   [&](uint64_t o, uint64_t ia, uint64_t ib) {
                     if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
                       const float x = static_cast<float>(int32_t{a[ia]} - sa.zeroPoint) * sa.scale;
                       const float y = static_cast<float>(int32_t{b[ib]} - sb.zeroPoint) * sb.scale;
                       out[o] = cmp(x, y) ? 1 : 0;
                     } else if constexpr (std::is_same_v<T, Bool8>) {
                       out[o] = cmp(a[ia].v != 0, b[ib].v != 0) ? 1 : 0;
                     } else if constexpr (std::is_same_v<T, hal::Half>) {
                       out[o] = cmp(toFloat(a[ia]), toFloat(b[ib])) ? 1 : 0;
                     } else {
                       out[o] = cmp(a[ia], b[ib]) ? 1 : 0;
                     }
                   });
}

template <template <typename> class Cmp>
Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      kernel<float>(ctx, Cmp<float>());
      break;
    case OperandType::TENSOR_FLOAT16:
      kernel<hal::Half>(ctx, Cmp<float>());
      break;
    case OperandType::TENSOR_INT32:
      kernel<int32_t>(ctx, Cmp<int32_t>());
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      kernel<uint8_t>(ctx, Cmp<float>());
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      kernel<int8_t>(ctx, Cmp<float>());
      break;
    case OperandType::TENSOR_BOOL8:
      kernel<Bool8>(ctx, Cmp<bool>());
      break;
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
  return Status::Ok();
}

}  // namespace

void registerComparisons(OperationTable& t) {
  t.add(OperationDef{OperationType::EQUAL, &validate, &prepareBroadcast, &execute<std::equal_to>});
  t.add(OperationDef{OperationType::NOT_EQUAL, &validate, &prepareBroadcast,
                     &execute<std::not_equal_to>});
  t.add(OperationDef{OperationType::GREATER, &validate, &prepareBroadcast, &execute<std::greater>});
  t.add(OperationDef{OperationType::GREATER_EQUAL, &validate, &prepareBroadcast,
                     &execute<std::greater_equal>});
  t.add(OperationDef{OperationType::LESS, &validate, &prepareBroadcast, &execute<std::less>});
  t.add(OperationDef{OperationType::LESS_EQUAL, &validate, &prepareBroadcast,
                     &execute<std::less_equal>});
}

}  // namespace nncosim::ops::elementwise
