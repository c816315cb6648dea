// REDUCE_ALL, REDUCE_ANY, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, REDUCE_SUM over the listed
// axes. Floating point accumulates in float (half rounds on store).
#include <limits>

#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

using hal::OperationType;

Status validate(const OperationContext& ctx) {
  switch (ctx.type()) {
    case OperationType::REDUCE_ALL:
    case OperationType::REDUCE_ANY:
      NNC_TRY(expectUnarySignature(ctx, {OperandType::TENSOR_BOOL8},
                                   {OperandType::TENSOR_INT32, OperandType::BOOL}, 3));
      break;
    case OperationType::REDUCE_MAX:
    case OperationType::REDUCE_MIN:
      NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types,
                                   {OperandType::TENSOR_INT32, OperandType::BOOL}, 3));
      break;
    default:
      NNC_TRY(expectUnarySignature(ctx, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16},
                                   {OperandType::TENSOR_INT32, OperandType::BOOL}, 3));
  }
  return expectInputRank(ctx, 0, 0, 4);
}

Result<ReducePlan> plan(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() > 4) return hal::fail("input 0: rank ", in.rank(), " is more than 4");
  NNC_TRY(expect1D(ctx, 1, -1, "axes"));
  return makeReducePlan(in, int32Values(ctx, 1), ctx.scalar<uint8_t>(2) != 0,
                        "input 1 (axes): axis");
}

Status prepare(OperationContext& ctx) {
  auto p = plan(ctx);
  NNC_TRY(p);
  return setOutput(ctx, 0, p->outDims);
}

// out = fold(init, inputs...) with the accumulator type A.
template <typename T, typename A, typename F>
void reduceInto(OperationContext& ctx, const ReducePlan& p, A init, F fold) {
  const T* x = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  std::vector<A> acc(ctx.outputShape(0).elements(), init);
  forEachReduced(ctx.inputShape(0).dimensions, p,
                 [&](uint64_t i, uint64_t o) { acc[o] = fold(acc[o], static_cast<A>(x[i])); });
  for (size_t o = 0; o < acc.size(); ++o) out[o] = fromFloat<T>(acc[o]);
}

template <typename T>
Status reduceTyped(OperationContext& ctx, const ReducePlan& p) {
  switch (ctx.type()) {
    case OperationType::REDUCE_SUM:
      reduceInto<T, float>(ctx, p, 0.0f, [](float a, float b) { return a + b; });
      return Status::Ok();
    case OperationType::REDUCE_PROD:
      // 0 * inf would give nan; NNAPI defines the product with a zero as zero.
      reduceInto<T, float>(ctx, p, 1.0f,
                           [](float a, float b) { return (a == 0 || b == 0) ? 0.0f : a * b; });
      return Status::Ok();
    case OperationType::REDUCE_MAX:
      reduceInto<T, float>(ctx, p, std::numeric_limits<float>::lowest(),
                           [](float a, float b) { return b > a ? b : a; });
      return Status::Ok();
    case OperationType::REDUCE_MIN:
      reduceInto<T, float>(ctx, p, std::numeric_limits<float>::max(),
                           [](float a, float b) { return b < a ? b : a; });
      return Status::Ok();
    case OperationType::REDUCE_ALL:
      reduceInto<T, float>(ctx, p, 1.0f,
                           [](float a, float b) { return (a != 0 && b != 0) ? 1.0f : 0.0f; });
      return Status::Ok();
    case OperationType::REDUCE_ANY:
      reduceInto<T, float>(ctx, p, 0.0f,
                           [](float a, float b) { return (a != 0 || b != 0) ? 1.0f : 0.0f; });
      return Status::Ok();
    default:
      return hal::fail("not a reduction");
  }
}

Status execute(OperationContext& ctx) {
  auto p = plan(ctx);
  NNC_TRY(p);
  const OperandType t = ctx.inputType(0);
  const bool isMinMax =
      ctx.type() == OperationType::REDUCE_MAX || ctx.type() == OperationType::REDUCE_MIN;
  // Empty reductions of quantized MAX/MIN start from the type's limits, as NNAPI does.
  if (t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_BOOL8) {
    if (isMinMax && p->reducedCount == 0) {
      const uint8_t v = ctx.type() == OperationType::REDUCE_MAX ? 0 : 255;
      std::memset(ctx.outputBytes(0), v, ctx.outputShape(0).elements());
      return Status::Ok();
    }
    return reduceTyped<uint8_t>(ctx, *p);
  }
  if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    if (isMinMax && p->reducedCount == 0) {
      const int8_t v = ctx.type() == OperationType::REDUCE_MAX ? -128 : 127;
      std::memset(ctx.outputBytes(0), static_cast<uint8_t>(v), ctx.outputShape(0).elements());
      return Status::Ok();
    }
    return reduceTyped<int8_t>(ctx, *p);
  }
  if (t == OperandType::TENSOR_FLOAT16) return reduceTyped<hal::Half>(ctx, *p);
  return reduceTyped<float>(ctx, *p);
}

}  // namespace

void registerReduce(OperationTable& t) {
  for (OperationType op :
       {OperationType::REDUCE_ALL, OperationType::REDUCE_ANY, OperationType::REDUCE_MAX,
        OperationType::REDUCE_MIN, OperationType::REDUCE_PROD, OperationType::REDUCE_SUM})
    t.add(OperationDef{op, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
