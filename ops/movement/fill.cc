// FILL: a tensor of the shape given by input 0, every element the scalar input 1.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectCounts(ctx, 2, 2, 1));
  NNC_TRY(expectRequired(ctx, 2));
  const OperandType out = ctx.outputShape(0).type;
  OperandType value;
  switch (out) {
    case OperandType::TENSOR_FLOAT32:
      value = OperandType::FLOAT32;
      break;
    case OperandType::TENSOR_FLOAT16:
      value = OperandType::FLOAT16;
      break;
    case OperandType::TENSOR_INT32:
      value = OperandType::INT32;
      break;
    default:
      return hal::fail("output 0: type ", hal::toString(out),
                       " is not supported (expected TENSOR_FLOAT32, TENSOR_FLOAT16 or "
                       "TENSOR_INT32)");
  }
  NNC_TRY(expectInputType(ctx, 0, OperandType::TENSOR_INT32));
  NNC_TRY(expectInputType(ctx, 1, value));
  return expectInputRank(ctx, 0, 1, 1);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(expect1D(ctx, 0, -1, "dims"));
  std::vector<uint32_t> dims;
  for (int32_t d : int32Values(ctx, 0)) {
    if (d < 0) return hal::fail("input 0 (dims): dimension ", d, " is negative");
    dims.push_back(static_cast<uint32_t>(d));
  }
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  const size_t es = hal::elementSize(ctx.outputShape(0).type);
  fillElements(ctx.outputBytes(0), ctx.inputBytes(1), ctx.outputShape(0).elements(), es);
  return Status::Ok();
}

}  // namespace

void registerFill(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::FILL, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
