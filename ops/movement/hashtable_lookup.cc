// HASHTABLE_LOOKUP: rows of Values whose key (in the sorted Keys) matches each lookup;
// a miss gives a zero row and hit 0.
#include <algorithm>

#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  NNC_TRY(expectCounts(ctx, 3, 3, 2));
  NNC_TRY(expectRequired(ctx, 3));
  NNC_TRY(expectInputType(ctx, 0, OperandType::TENSOR_INT32));
  NNC_TRY(expectInputType(ctx, 1, OperandType::TENSOR_INT32));
  NNC_TRY(expectInputTypeIn(
      ctx, 2,
      {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM}));
  NNC_TRY(expectOutputType(ctx, 0, ctx.inputType(2)));
  NNC_TRY(expectSameQuant(ctx, 2, 0));
  NNC_TRY(expectOutputType(ctx, 1, OperandType::TENSOR_QUANT8_ASYMM));
  NNC_TRY(expectInputRank(ctx, 0, 1, 1));
  return expectInputRank(ctx, 1, 1, 1);
}

Status prepare(OperationContext& ctx) {
  NNC_TRY(expect1D(ctx, 0, -1, "lookups"));
  NNC_TRY(expect1D(ctx, 1, -1, "keys"));
  const Shape& values = ctx.inputShape(2);
  if (values.rank() < 1 || values.dim(0) != ctx.inputShape(1).dim(0))
    return hal::fail("input 2 (values): shape ", toString(values.dimensions),
                     " must start with the number of keys ", ctx.inputShape(1).dim(0));
  const uint32_t k = ctx.inputShape(0).dim(0);
  std::vector<uint32_t> dims = values.dimensions;
  dims[0] = k;
  NNC_TRY(setOutput(ctx, 0, dims));
  return setOutput(ctx, 1, {k});
}

Status execute(OperationContext& ctx) {
  const Shape& values = ctx.inputShape(2);
  const size_t es = hal::elementSize(values.type);
  const uint64_t row = product(values.dimensions, 1, values.rank());
  const std::vector<int32_t> lookups = int32Values(ctx, 0);
  const std::vector<int32_t> keys = int32Values(ctx, 1);
  uint8_t* out = ctx.outputBytes(0);
  uint8_t* hits = ctx.outputBytes(1);
  for (size_t i = 0; i < lookups.size(); ++i) {
    auto it = std::lower_bound(keys.begin(), keys.end(), lookups[i]);
    if (it != keys.end() && *it == lookups[i]) {
      const uint64_t r = static_cast<uint64_t>(it - keys.begin());
      copyElements(out + i * row * es, ctx.inputBytes(2) + r * row * es, row, es);
      hits[i] = 1;
    } else {
      if (row) std::memset(out + i * row * es, 0, row * es);
      hits[i] = 0;
    }
  }
  return Status::Ok();
}

}  // namespace

void registerHashtableLookup(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::HASHTABLE_LOOKUP, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
