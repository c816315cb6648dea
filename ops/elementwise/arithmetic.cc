#include "ops/elementwise/arithmetic.h"

#include <algorithm>

#include "ops/elementwise/quant_arith.h"
#include "ops/quant/quant_params.h"

namespace nncosim::ops::elementwise {
namespace {

constexpr size_t kInput1 = 0, kInput2 = 1, kActivation = 2, kOutput = 0;

const char* opName(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd:
      return "ADD";
    case ArithOp::kSub:
      return "SUB";
    case ArithOp::kMul:
      return "MUL";
    case ArithOp::kDiv:
      return "DIV";
  }
  return "?";
}

template <typename T>
void floatKernel(ArithOp op, OperationContext& ctx, int32_t activation) {
  float lo, hi;
  quant::activationRangeFloat(activation, &lo, &hi);
  const T* a = ctx.input<T>(kInput1);
  const T* b = ctx.input<T>(kInput2);
  T* out = ctx.output<T>(kOutput);
  auto run = [&](auto fn) {
    forEachBroadcast(ctx.outputShape(kOutput).dimensions, ctx.inputShape(kInput1),
                     ctx.inputShape(kInput2), [&](uint64_t o, uint64_t ia, uint64_t ib) {
                       const float r = fn(toFloat(a[ia]), toFloat(b[ib]));
                       out[o] = fromFloat<T>(std::min(std::max(r, lo), hi));
                     });
  };
  switch (op) {
    case ArithOp::kAdd:
      run([](float x, float y) { return x + y; });
      break;
    case ArithOp::kSub:
      run([](float x, float y) { return x - y; });
      break;
    case ArithOp::kMul:
      run([](float x, float y) { return x * y; });
      break;
    case ArithOp::kDiv:
      run([](float x, float y) { return x / y; });
      break;
  }
}

// Integer arithmetic wraps (two's complement) instead of overflowing.
int32_t wrap(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

int32_t floorDiv(int32_t a, int32_t b) {
  if (b == 0) return 0;  // NNAPI: undefined, but must not crash; its reference gives 0
  int64_t q = static_cast<int64_t>(a) / b;
  if (static_cast<int64_t>(a) % b != 0 && ((a < 0) != (b < 0))) --q;
  return wrap(q);
}

void int32Kernel(ArithOp op, OperationContext& ctx) {
  const int32_t* a = ctx.input<int32_t>(kInput1);
  const int32_t* b = ctx.input<int32_t>(kInput2);
  int32_t* out = ctx.output<int32_t>(kOutput);
  auto run = [&](auto fn) {
    forEachBroadcast(ctx.outputShape(kOutput).dimensions, ctx.inputShape(kInput1),
                     ctx.inputShape(kInput2),
                     [&](uint64_t o, uint64_t ia, uint64_t ib) { out[o] = fn(a[ia], b[ib]); });
  };
  switch (op) {
    case ArithOp::kAdd:
      run([](int32_t x, int32_t y) { return wrap(int64_t{x} + y); });
      break;
    case ArithOp::kSub:
      run([](int32_t x, int32_t y) { return wrap(int64_t{x} - y); });
      break;
    case ArithOp::kMul:
      run([](int32_t x, int32_t y) { return wrap(int64_t{x} * y); });
      break;
    case ArithOp::kDiv:
      run(floorDiv);
      break;
  }
}

}  // namespace

Result<quant::QuantizedMultiplier> multiplierSmallerThanOne(double real, const char* what) {
  if (!(real > 0.0 && real < 1.0))
    return hal::fail(what, " multiplier ", real, " must be in (0, 1)");
  quant::QuantizedMultiplier m = quant::quantizeMultiplier(real);
  if (m.shift > 0) return hal::fail(what, " multiplier ", real, " rounds to 1");
  return m;
}

Result<QuantArithParams> quantArithParams(bool mul, bool negateSecond, const Shape& s1,
                                          const Shape& s2, const Shape& so, int32_t activation) {
  QuantArithParams p;
  p.mul = mul;
  p.aZp = s1.zeroPoint;
  p.bZp = s2.zeroPoint;
  p.outZp = so.zeroPoint;
  const bool int16 = so.type == OperandType::TENSOR_QUANT16_SYMM;
  const bool isSigned = int16 || so.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const quant::ActivationRange type = quant::typeRange(int16 ? 16 : 8, isSigned);
  p.range = quant::activationRange(activation, so.scale, so.zeroPoint, type.min, type.max);
  if (mul) {
    // The float product widened to double, as NNAPI computes it.
    const double productScale = s1.scale * s2.scale;
    NNC_ASSIGN_OR_RETURN(p.out, multiplierSmallerThanOne(productScale / so.scale, "output"));
    return p;
  }
  p.leftShift = int16 ? 15 : 20;
  // Mixed float/double arithmetic in the same order as NNAPI, so the multipliers match.
  const double twiceMaxInputScale = 2 * std::max(s1.scale, s2.scale);
  const double real1 = s1.scale / twiceMaxInputScale;
  const double real2 = s2.scale / twiceMaxInputScale;
  const double realOut = twiceMaxInputScale / ((1 << p.leftShift) * so.scale);
  NNC_ASSIGN_OR_RETURN(p.a, multiplierSmallerThanOne(real1, "input 0"));
  NNC_ASSIGN_OR_RETURN(p.b, multiplierSmallerThanOne(real2, "input 1"));
  NNC_ASSIGN_OR_RETURN(p.out, multiplierSmallerThanOne(realOut, "output"));
  if (negateSecond) p.b.multiplier = -p.b.multiplier;
  return p;
}

Status validateArithmetic(ArithOp op, const OperationContext& ctx) {
  NNC_TRY(checkInputCount(ctx, {3}));
  NNC_TRY(checkOutputCount(ctx, 1));
  const OperandType t = ctx.inputType(kInput1);
  if (op == ArithOp::kDiv) {
    NNC_TRY(checkSupportedType(
        ctx, kInput1,
        {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32}));
  } else {
    if (!(t == OperandType::TENSOR_QUANT16_SYMM && ctx.quant16x8()))
      NNC_TRY(
          checkSupportedType(ctx, kInput1,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM,
                              OperandType::TENSOR_QUANT8_ASYMM_SIGNED, OperandType::TENSOR_INT32}));
  }
  if (t == OperandType::TENSOR_QUANT16_SYMM) {
    // nncosim's 16x8 mode extension (docs/quantization.md section 10): ADD and SUB of int16
    // with TFLite's general int16 scheme; everything else stays NNAPI's.
    if (!ctx.quant16x8() || (op != ArithOp::kAdd && op != ArithOp::kSub))
      return hal::fail("input 0: TENSOR_QUANT16_SYMM ", opName(op),
                       " needs the 16x8 mode and is defined for ADD and SUB only");
  }
  NNC_TRY(checkInputType(ctx, kInput2, t));
  NNC_TRY(checkInputType(ctx, kActivation, OperandType::INT32));
  NNC_TRY(checkOutputType(ctx, kOutput, t));
  NNC_TRY(checkInputRankAtMost(ctx, kInput1, 4));
  NNC_TRY(checkInputRankAtMost(ctx, kInput2, 4));
  NNC_TRY(checkFusedActivation(ctx, kActivation));
  if (op == ArithOp::kMul && isQuant8(t)) {
    // NNAPI requires a multiplier below one: output scale > input1 scale * input2 scale.
    const float product = ctx.inputShape(kInput1).scale * ctx.inputShape(kInput2).scale;
    const float outScale = ctx.outputShape(kOutput).scale;
    if (!(outScale > product))
      return hal::fail("output 0: scale ", outScale,
                       " must be greater than input 0 scale * input 1 scale = ", product);
  }
  if (t == OperandType::TENSOR_INT32 && ctx.hasInputValue(kActivation) &&
      ctx.scalar<int32_t>(kActivation) != quant::kActNone)
    return hal::fail("input ", kActivation, ": TENSOR_INT32 ", opName(op),
                     " supports no fused activation, found ", ctx.scalar<int32_t>(kActivation));
  return Status::Ok();
}

Status prepareBroadcastBinary(OperationContext& ctx) {
  const Shape& a = ctx.inputShape(kInput1);
  const Shape& b = ctx.inputShape(kInput2);
  if (a.type != b.type)
    return hal::fail("input 1: type ", hal::toString(b.type), " differs from input 0 type ",
                     hal::toString(a.type));
  return prepareBroadcast(ctx);
}

Status executeArithmeticNonQuant(ArithOp op, OperationContext& ctx) {
  const int32_t activation = ctx.scalar<int32_t>(kActivation);
  switch (ctx.inputType(kInput1)) {
    case OperandType::TENSOR_FLOAT32:
      floatKernel<float>(op, ctx, activation);
      break;
    case OperandType::TENSOR_FLOAT16:
      floatKernel<hal::Half>(op, ctx, activation);
      break;
    case OperandType::TENSOR_INT32:
      if (activation != quant::kActNone)
        return hal::fail("input ", kActivation, ": TENSOR_INT32 ", opName(op),
                         " supports no fused activation, found ", activation);
      int32Kernel(op, ctx);
      break;
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(kInput1)), " for ",
                       opName(op));
  }
  return Status::Ok();
}

}  // namespace nncosim::ops::elementwise
