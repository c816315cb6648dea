// SQUEEZE: drops size-1 dimensions (all of them, or those listed in input 1).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Types, {OperandType::TENSOR_INT32}, 1));
  return expectInputRank(ctx, 0, 0, 4);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  const uint32_t rank = in.rank();
  std::vector<bool> squeeze(rank, false);
  if (ctx.isOmitted(1)) {
    for (uint32_t d = 0; d < rank; ++d) squeeze[d] = in.dim(d) == 1;
  } else {
    NNC_TRY(expect1D(ctx, 1, -1, "squeeze dims"));
    for (int32_t a : int32Values(ctx, 1)) {
      auto axis = resolveAxis(a, rank, "input 1 (squeeze dims): dimension");
      NNC_TRY(axis);
      if (in.dim(*axis) != 1)
        return hal::fail("input 1 (squeeze dims): dimension ", a, " of input shape ",
                         toString(in.dimensions), " is not 1");
      squeeze[*axis] = true;
    }
  }
  std::vector<uint32_t> dims;
  for (uint32_t d = 0; d < rank; ++d)
    if (!squeeze[d]) dims.push_back(in.dim(d));
  if (dims.empty()) dims.push_back(1);  // NNAPI: squeezing everything gives [1]
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  copyElements(ctx.outputBytes(0), ctx.inputBytes(0), ctx.inputShape(0).elements(),
               hal::elementSize(ctx.inputType(0)));
  return Status::Ok();
}

}  // namespace

void registerSqueeze(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SQUEEZE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
