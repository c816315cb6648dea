// ARGMAX / ARGMIN: index of the largest / smallest element along an axis (the first
// one on ties).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectCounts(ctx, 2, 2, 1));
  NNC_TRY(expectRequired(ctx, 2));
  NNC_TRY(expectInputTypeIn(ctx, 0, kFloatQuant8Int32Types));
  NNC_TRY(expectInputType(ctx, 1, OperandType::INT32));
  return expectOutputType(ctx, 0, OperandType::TENSOR_INT32);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() == 0) return hal::fail("input 0: expected rank >= 1");
  auto axis = resolveAxis(ctx.scalar<int32_t>(1), in.rank(), "input 1 (axis)");
  NNC_TRY(axis);
  if (in.dim(*axis) == 0) return hal::fail("input 0: dimension ", *axis, " to reduce is empty");
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < in.rank(); ++d)
    if (d != *axis) dims.push_back(in.dim(d));
  if (dims.empty()) dims.push_back(1);
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  const uint32_t axis = *resolveAxis(ctx.scalar<int32_t>(1), in.rank(), "axis");
  const bool isMin = ctx.type() == hal::OperationType::ARGMIN;
  const uint64_t outer = product(in.dimensions, 0, axis);
  const uint64_t n = in.dim(axis);
  const uint64_t inner = product(in.dimensions, axis + 1, in.rank());
  int32_t* out = ctx.output<int32_t>(0);
  return dispatchElementType(in.type, [&](auto zero) -> Status {
    using T = decltype(zero);
    const T* x = ctx.input<T>(0);
    for (uint64_t o = 0; o < outer; ++o)
      for (uint64_t i = 0; i < inner; ++i) {
        const T* p = x + o * n * inner + i;
        auto best = toFloatOrInt(p[0]);
        int32_t bestIdx = 0;
        for (uint64_t k = 1; k < n; ++k) {
          const auto v = toFloatOrInt(p[k * inner]);
          if (isMin ? v < best : v > best) {
            best = v;
            bestIdx = static_cast<int32_t>(k);
          }
        }
        out[o * inner + i] = bestIdx;
      }
    return Status::Ok();
  });
}

}  // namespace

void registerArgMinMax(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::ARGMAX, &validate, &prepare, &execute});
  t.add(OperationDef{hal::OperationType::ARGMIN, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
