// EXPAND_DIMS: inserts a dimension of size 1.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  return expectUnarySignature(ctx, kFloatQuant8Int32Types, {OperandType::INT32}, 2);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  auto axis = resolveAxis(ctx.scalar<int32_t>(1), in.rank() + 1, "input 1 (axis)");
  NNC_TRY(axis);
  std::vector<uint32_t> dims = in.dimensions;
  dims.insert(dims.begin() + *axis, 1);
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  copyElements(ctx.outputBytes(0), ctx.inputBytes(0), ctx.inputShape(0).elements(),
               hal::elementSize(ctx.inputType(0)));
  return Status::Ok();
}

}  // namespace

void registerExpandDims(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::EXPAND_DIMS, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
