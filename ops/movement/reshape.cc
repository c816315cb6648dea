// RESHAPE: the same elements under a new shape; one target dimension may be -1.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, kFloatQuant8Int32Types, {OperandType::TENSOR_INT32}, 2));
  return expectInputRank(ctx, 0, 0, 4);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(expect1D(ctx, 1, -1, "shape"));
  const std::vector<int32_t> target = int32Values(ctx, 1);
  const uint64_t inElements = ctx.inputShape(0).elements();
  std::vector<uint32_t> dims(target.size());
  int stretch = -1;
  uint64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (stretch >= 0) return hal::fail("input 1 (shape): more than one -1");
      stretch = static_cast<int>(i);
    } else if (target[i] < 0) {
      return hal::fail("input 1 (shape): dimension ", i, " is ", target[i],
                       " (must be >= 0 or -1)");
    } else {
      dims[i] = static_cast<uint32_t>(target[i]);
      known *= dims[i];
      if (known > (uint64_t{1} << 32))
        return hal::fail("input 1 (shape): the target shape holds more than 2^32 elements");
    }
  }
  if (stretch >= 0) {
    if (known == 0 || inElements % known != 0)
      return hal::fail("input 1 (shape): cannot infer the -1 dimension: ", inElements,
                       " elements are not a multiple of ", known);
    dims[stretch] = static_cast<uint32_t>(inElements / known);
    known *= dims[stretch];
  }
  if (known != inElements)
    return hal::fail("input 1 (shape): target holds ", known, " elements but input 0 has ",
                     inElements, " (shape ", toString(ctx.inputShape(0).dimensions), ")");
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  copyElements(ctx.outputBytes(0), ctx.inputBytes(0), ctx.inputShape(0).elements(),
               hal::elementSize(ctx.inputType(0)));
  return Status::Ok();
}

}  // namespace

void registerReshape(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::RESHAPE, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
