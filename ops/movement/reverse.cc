// REVERSE: reverses one dimension of a tensor.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"
#include "ops/movement/strided_copy.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Int32Types, {OperandType::TENSOR_INT32}, 2));
  const Shape& axis = ctx.inputShape(1);
  if (rankKnown(axis) && (axis.rank() != 1 || (axis.dim(0) != 0 && axis.dim(0) != 1)))
    return hal::fail("input 1 (axis): expected shape [1], got ", toString(axis.dimensions));
  return expectInputRank(ctx, 0, 1, 8);
}

Result<uint32_t> reverseAxis(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() < 1 || in.rank() > 8)
    return hal::fail("input 0: rank must be 1 to 8, got shape ", toString(in.dimensions));
  NNC_TRY(expect1D(ctx, 1, 1, "axis"));
  const int32_t axis = ctx.input<int32_t>(1)[0];
  if (axis < 0 || axis >= static_cast<int32_t>(in.rank()))
    return hal::fail("input 1 (axis): ", axis, " is out of range [0, ", in.rank(), ")");
  return static_cast<uint32_t>(axis);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(reverseAxis(ctx));
  return setOutput(ctx, 0, ctx.inputShape(0).dimensions);
}

Status execute(OperationContext& ctx) {
  auto axis = reverseAxis(ctx);
  NNC_TRY(axis);
  const Shape& in = ctx.inputShape(0);
  std::vector<int64_t> begin(in.rank(), 0), step(in.rank(), 1);
  if (in.dim(*axis) > 0) {
    begin[*axis] = in.dim(*axis) - 1;
    step[*axis] = -1;
  }
  stridedCopy(ctx.inputBytes(0), in.dimensions, begin, step, in.dimensions,
              hal::elementSize(in.type), ctx.outputBytes(0));
  return Status::Ok();
}

}  // namespace

void registerReverse(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::REVERSE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
