// CAST: converts between FLOAT16, FLOAT32, INT32 and QUANT8_ASYMM element values (the raw
// values; quantization parameters are ignored). To QUANT8_ASYMM: saturate to [0, 255],
// then truncate; to INT32: truncate toward zero (saturating, NaN -> 0). BOOL8, QUANT16_*,
// QUANT8_ASYMM_SIGNED and QUANT8_SYMM support only the identity cast.
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/elementwise/common.h"

namespace nncosim::ops::elementwise {
namespace {

bool isNumericCastType(OperandType t) {
  return t == OperandType::TENSOR_FLOAT16 || t == OperandType::TENSOR_FLOAT32 ||
         t == OperandType::TENSOR_INT32 || t == OperandType::TENSOR_QUANT8_ASYMM;
}

bool isIdentityOnlyType(OperandType t) {
  return t == OperandType::TENSOR_BOOL8 || t == OperandType::TENSOR_QUANT16_ASYMM ||
         t == OperandType::TENSOR_QUANT16_SYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ||
         t == OperandType::TENSOR_QUANT8_SYMM;
}

Status validate(const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {1}));
  NNC_TRY(checkOutputCount(ctx, 1));
  NNC_TRY(checkNotOmitted(ctx, 0));
  const OperandType in = ctx.inputType(0);
  const OperandType out = ctx.outputShape(0).type;
  if (isNumericCastType(in)) {
    if (!isNumericCastType(out))
      return hal::fail("output 0: cannot cast ", hal::toString(in), " to ", hal::toString(out),
                       " (expected TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_INT32 or "
                       "TENSOR_QUANT8_ASYMM)");
  } else if (isIdentityOnlyType(in)) {
    if (out != in)
      return hal::fail("output 0: ", hal::toString(in), " supports only the identity cast, found ",
                       hal::toString(out));
  } else {
    return hal::fail("input 0: unsupported type ", hal::toString(in));
  }
  // Known dimensions must agree (NNAPI checks this before execution).
  const auto& inDims = ctx.inputShape(0).dimensions;
  const auto& outDims = ctx.outputShape(0).dimensions;
  if (!inDims.empty() && !outDims.empty() && numElements(outDims) != 0 && inDims != outDims)
    return hal::fail("output 0: shape ", toString(outDims), " differs from input 0 shape ",
                     toString(inDims));
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  Shape out = ctx.outputShape(0);
  out.dimensions = ctx.inputShape(0).dimensions;
  return ctx.setOutputShape(0, out);
}

// Every source value is exact as a double.
template <typename From>
double load(const From* p, uint64_t i) {
  if constexpr (std::is_same_v<From, hal::Half>)
    return static_cast<float>(p[i]);
  else
    return static_cast<double>(p[i]);
}

template <typename To>
To convert(double v) {
  if constexpr (std::is_same_v<To, float>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_same_v<To, hal::Half>) {
    return hal::Half(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, uint8_t>) {
    if (v < 0) return 0;
    if (v > 255) return 255;
    if (std::isnan(v)) return 0;
    return static_cast<uint8_t>(v);
  } else {
    static_assert(std::is_same_v<To, int32_t>);
    if (std::isnan(v)) return 0;
    if (v <= std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
    if (v >= std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
    return static_cast<int32_t>(v);
  }
}

template <typename From, typename To>
void castKernel(OperationContext& ctx) {
  const From* in = ctx.input<From>(0);
  To* out = ctx.output<To>(0);
  const uint64_t n = ctx.inputShape(0).elements();
  for (uint64_t i = 0; i < n; ++i) out[i] = convert<To>(load(in, i));
}

template <typename From>
Status castFrom(OperationContext& ctx) {
  switch (ctx.outputShape(0).type) {
    case OperandType::TENSOR_FLOAT32:
      castKernel<From, float>(ctx);
      break;
    case OperandType::TENSOR_FLOAT16:
      castKernel<From, hal::Half>(ctx);
      break;
    case OperandType::TENSOR_INT32:
      castKernel<From, int32_t>(ctx);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      castKernel<From, uint8_t>(ctx);
      break;
    default:
      return hal::fail("output 0: unsupported type ", hal::toString(ctx.outputShape(0).type));
  }
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      return castFrom<float>(ctx);
    case OperandType::TENSOR_FLOAT16:
      return castFrom<hal::Half>(ctx);
    case OperandType::TENSOR_INT32:
      return castFrom<int32_t>(ctx);
    case OperandType::TENSOR_QUANT8_ASYMM:
      return castFrom<uint8_t>(ctx);
    default: {
      if (ctx.outputShape(0).type != ctx.inputType(0))
        return hal::fail("output 0: ", hal::toString(ctx.inputType(0)),
                         " supports only the identity cast");
      const uint64_t bytes = ctx.inputShape(0).bytes();
      if (bytes > 0) std::memcpy(ctx.outputBytes(0), ctx.inputBytes(0), bytes);
      return Status::Ok();
    }
  }
}

}  // namespace

void registerCast(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::CAST, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::elementwise
