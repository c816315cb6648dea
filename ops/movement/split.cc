// SPLIT: num_splits equal pieces along an axis.
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

Status validate(const OperationContext& ctx) {
  if (ctx.numInputs() != 3) return hal::fail("expected 3 inputs, got ", ctx.numInputs());
  if (ctx.numOutputs() < 1) return hal::fail("expected at least 1 output");
  NNC_TRY(expectRequired(ctx, 3));
  NNC_TRY(expectInputTypeIn(ctx, 0, kFloatQuant8Int32Types));
  NNC_TRY(expectInputType(ctx, 1, OperandType::INT32));
  NNC_TRY(expectInputType(ctx, 2, OperandType::INT32));
  for (size_t o = 0; o < ctx.numOutputs(); ++o) {
    NNC_TRY(expectOutputType(ctx, o, ctx.inputType(0)));
    NNC_TRY(expectSameQuant(ctx, 0, o));
  }
  if (ctx.hasInputValue(2) && ctx.scalar<int32_t>(2) != static_cast<int32_t>(ctx.numOutputs()))
    return hal::fail("input 2 (num_splits): ", ctx.scalar<int32_t>(2), " but the operation has ",
                     ctx.numOutputs(), " outputs");
  return Status::Ok();
}

Result<uint32_t> splitAxis(const OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  auto axis = resolveAxis(ctx.scalar<int32_t>(1), in.rank(), "input 1 (axis)");
  NNC_TRY(axis);
  const int32_t n = ctx.scalar<int32_t>(2);
  if (n <= 0 || static_cast<size_t>(n) != ctx.numOutputs())
    return hal::fail("input 2 (num_splits): ", n, " but the operation has ", ctx.numOutputs(),
                     " outputs");
  if (in.dim(*axis) % n != 0)
    return hal::fail("input 2 (num_splits): ", n, " does not divide dimension ", *axis, " of size ",
                     in.dim(*axis));
  return *axis;
}

Status prepare(OperationContext& ctx) {
  auto axis = splitAxis(ctx);
  NNC_TRY(axis);
  std::vector<uint32_t> dims = ctx.inputShape(0).dimensions;
  dims[*axis] /= static_cast<uint32_t>(ctx.numOutputs());
  for (size_t o = 0; o < ctx.numOutputs(); ++o) NNC_TRY(setOutput(ctx, o, dims));
  return Status::Ok();
}

Status execute(OperationContext& ctx) {
  auto axis = splitAxis(ctx);
  NNC_TRY(axis);
  const Shape& in = ctx.inputShape(0);
  const size_t es = hal::elementSize(in.type);
  const uint64_t outer = product(in.dimensions, 0, *axis);
  const uint64_t inner = product(in.dimensions, *axis + 1, in.rank());
  const uint64_t piece = in.dim(*axis) / ctx.numOutputs() * inner;
  const uint8_t* src = ctx.inputBytes(0);
  for (uint64_t k = 0; k < outer; ++k)
    for (size_t o = 0; o < ctx.numOutputs(); ++o) {
      copyElements(ctx.outputBytes(o) + k * piece * es, src, piece, es);
      src += piece * es;
    }
  return Status::Ok();
}

}  // namespace

void registerSplit(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::SPLIT, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
