// TOPK_V2: the k largest values of each last-dimension row and their indices, in
// descending order; equal values list the larger index first.
#include <algorithm>
#include <utility>

#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectCounts(ctx, 2, 2, 2));
  NNC_TRY(expectRequired(ctx, 2));
  NNC_TRY(expectInputTypeIn(ctx, 0, kFloatQuant8Int32Types));
  NNC_TRY(expectInputType(ctx, 1, OperandType::INT32));
  NNC_TRY(expectOutputType(ctx, 0, ctx.inputType(0)));
  NNC_TRY(expectSameQuant(ctx, 0, 0));
  return expectOutputType(ctx, 1, OperandType::TENSOR_INT32);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() == 0) return hal::fail("input 0: expected rank >= 1");
  const int32_t k = ctx.scalar<int32_t>(1);
  if (k <= 0 || static_cast<uint32_t>(k) > in.dimensions.back())
    return hal::fail("input 1 (k): ", k, " is out of range [1, ", in.dimensions.back(), "]");
  std::vector<uint32_t> dims = in.dimensions;
  dims.back() = static_cast<uint32_t>(k);
  NNC_TRY(setOutput(ctx, 0, dims));
  return setOutput(ctx, 1, dims);
}

Status execute(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  const uint32_t k = static_cast<uint32_t>(ctx.scalar<int32_t>(1));
  const uint32_t row = in.dimensions.back();
  const uint64_t rows = row ? in.elements() / row : 0;
  int32_t* indices = ctx.output<int32_t>(1);
  return dispatchElementType(in.type, [&](auto zero) -> Status {
    using T = decltype(zero);
    using V = decltype(toFloatOrInt(zero));
    const T* x = ctx.input<T>(0);
    T* values = ctx.output<T>(0);
    std::vector<std::pair<V, int32_t>> v(row);
    for (uint64_t r = 0; r < rows; ++r) {
      for (uint32_t i = 0; i < row; ++i)
        v[i] = {toFloatOrInt(x[r * row + i]), static_cast<int32_t>(i)};
      // Descending by (value, index): ties put the larger index first.
      std::partial_sort(v.begin(), v.begin() + k, v.end(),
                        [](const auto& a, const auto& b) { return b < a; });
      for (uint32_t i = 0; i < k; ++i) {
        values[r * k + i] = x[r * row + v[i].second];
        indices[r * k + i] = v[i].second;
      }
    }
    return Status::Ok();
  });
}

}  // namespace

void registerTopK(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::TOPK_V2, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
