// MEAN over the listed axes. Quantized tensors (whose output shares the input's scale
// and zero point) average the raw values in int32 and truncate, as NNAPI's CPU path
// (TFLite's reference Mean<T, int32>) does.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types,
                               {OperandType::TENSOR_INT32, OperandType::INT32}, 3));
  return expectInputRank(ctx, 0, 0, 4);
}

Result<ReducePlan> plan(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() > 4) return hal::fail("input 0: rank ", in.rank(), " is more than 4");
  NNC_TRY(expect1D(ctx, 1, -1, "axes"));
  return makeReducePlan(in, int32Values(ctx, 1), ctx.scalar<int32_t>(2) > 0,
                        "input 1 (axes): axis");
}

Status prepare(OperationContext& ctx) {
  auto p = plan(ctx);
  NNC_TRY(p);
  return setOutput(ctx, 0, p->outDims);
}

template <typename T, typename A>
void meanTyped(OperationContext& ctx, const ReducePlan& p) {
  const T* x = ctx.input<T>(0);
  T* out = ctx.output<T>(0);
  std::vector<A> sum(ctx.outputShape(0).elements(), A{0});
  forEachReduced(ctx.inputShape(0).dimensions, p,
                 [&](uint64_t i, uint64_t o) { sum[o] += static_cast<A>(x[i]); });
  const A n = static_cast<A>(p.reducedCount);
  for (size_t o = 0; o < sum.size(); ++o)
    out[o] = n > 0 ? fromFloat<T>(static_cast<float>(sum[o] / n)) : T{};
}

Status execute(OperationContext& ctx) {
  auto p = plan(ctx);
  NNC_TRY(p);
  switch (ctx.inputType(0)) {
    case OperandType::TENSOR_FLOAT32:
      meanTyped<float, float>(ctx, *p);
      break;
    case OperandType::TENSOR_FLOAT16:
      meanTyped<hal::Half, float>(ctx, *p);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
      meanTyped<uint8_t, int32_t>(ctx, *p);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      meanTyped<int8_t, int32_t>(ctx, *p);
      break;
    default:
      return hal::fail("input 0: unsupported type ", hal::toString(ctx.inputType(0)));
  }
  return Status::Ok();
}

}  // namespace

void registerMean(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::MEAN, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
