// EMBEDDING_LOOKUP: rows of Values (input 1) selected by Lookups (input 0).
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectCounts(ctx, 2, 2, 1));
  NNC_TRY(expectRequired(ctx, 2));
  NNC_TRY(expectInputType(ctx, 0, OperandType::TENSOR_INT32));
  NNC_TRY(expectInputTypeIn(ctx, 1, kFloatQuant8Int32Types));
  NNC_TRY(expectOutputType(ctx, 0, ctx.inputType(1)));
  NNC_TRY(expectSameQuant(ctx, 1, 0));
  return expectInputRank(ctx, 0, 1, 1);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(expect1D(ctx, 0, -1, "lookups"));
  const Shape& values = ctx.inputShape(1);
  if (values.rank() < 2)
    return hal::fail("input 1 (values): expected rank >= 2, got ", toString(values.dimensions));
  std::vector<uint32_t> dims = values.dimensions;
  dims[0] = ctx.inputShape(0).dim(0);
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  const Shape& values = ctx.inputShape(1);
  const size_t es = hal::elementSize(values.type);
  const uint64_t rows = values.dim(0);
  const uint64_t row = product(values.dimensions, 1, values.rank());
  const std::vector<int32_t> lookups = int32Values(ctx, 0);
  for (size_t i = 0; i < lookups.size(); ++i) {
    const int32_t k = lookups[i];
    if (k < 0 || static_cast<uint64_t>(k) >= rows)
      return hal::fail("input 0 (lookups): index ", k, " at position ", i, " is out of range [0, ",
                       rows, ")");
    copyElements(ctx.outputBytes(0) + i * row * es, ctx.inputBytes(1) + k * row * es, row, es);
  }
  return Status::Ok();
}

}  // namespace

void registerEmbeddingLookup(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::EMBEDDING_LOOKUP, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
