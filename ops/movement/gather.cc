// GATHER: slices of input 0 along `axis` picked by an index tensor.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  return expectUnarySignature(ctx, kFloatQuant8Int32Types,
                              {OperandType::INT32, OperandType::TENSOR_INT32}, 3);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() == 0) return hal::fail("input 0: GATHER needs a tensor of rank >= 1");
  auto axis = resolveAxis(ctx.scalar<int32_t>(1), in.rank(), "input 1 (axis)");
  NNC_TRY(axis);
  const Shape& indices = ctx.inputShape(2);
  std::vector<uint32_t> dims(in.dimensions.begin(), in.dimensions.begin() + *axis);
  dims.insert(dims.end(), indices.dimensions.begin(), indices.dimensions.end());
  dims.insert(dims.end(), in.dimensions.begin() + *axis + 1, in.dimensions.end());
  return setOutput(ctx, 0, dims);
}

Status execute(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  const uint32_t axis = *resolveAxis(ctx.scalar<int32_t>(1), in.rank(), "axis");
  const size_t es = hal::elementSize(in.type);
  const uint64_t outer = product(in.dimensions, 0, axis);
  const uint64_t axisSize = in.dim(axis);
  const uint64_t inner = product(in.dimensions, axis + 1, in.rank());
  const std::vector<int32_t> idx = int32Values(ctx, 2);
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] < 0 || static_cast<uint64_t>(idx[i]) >= axisSize)
      return hal::fail("input 2 (indices): index ", idx[i], " at position ", i,
                       " is out of range [0, ", axisSize, ")");
  uint8_t* dst = ctx.outputBytes(0);
  for (uint64_t o = 0; o < outer; ++o)
    for (int32_t k : idx) {
      copyElements(dst, ctx.inputBytes(0) + ((o * axisSize + k) * inner) * es, inner, es);
      dst += inner * es;
    }
  return Status::Ok();
}

}  // namespace

void registerGather(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::GATHER, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
