// RANK: the number of dimensions of a tensor, as an INT32 scalar.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectCounts(ctx, 1, 1, 1));
  NNC_TRY(expectRequired(ctx, 1));
  NNC_TRY(expectInputTypeIn(
      ctx, 0,
      {OperandType::TENSOR_FLOAT16, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
       OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT16_SYMM,
       OperandType::TENSOR_BOOL8, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL,
       OperandType::TENSOR_QUANT16_ASYMM, OperandType::TENSOR_QUANT8_SYMM,
       OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  return expectOutputType(ctx, 0, OperandType::INT32);
}

Status prepare(OperationContext& ctx) { return setOutput(ctx, 0, {}); }

Status execute(OperationContext& ctx) {
  const int32_t rank = static_cast<int32_t>(ctx.inputShape(0).rank());
  std::memcpy(ctx.outputBytes(0), &rank, sizeof(rank));
  return Status::Ok();
}

}  // namespace

void registerRank(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::RANK, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
